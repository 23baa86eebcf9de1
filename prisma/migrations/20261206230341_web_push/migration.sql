-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "pushMuted" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Settings" ADD COLUMN     "pushFirstLine" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "pushKindsOff" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "pushMode" TEXT NOT NULL DEFAULT 'telegram_and_push',
ADD COLUMN     "pushQuietEnd" INTEGER,
ADD COLUMN     "pushQuietStart" INTEGER,
ADD COLUMN     "pushTimeZone" TEXT NOT NULL DEFAULT 'UTC';

-- AlterTable
ALTER TABLE "WebSession" ADD COLUMN     "visibleSessionId" UUID,
ADD COLUMN     "visibleUntil" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "PushVapidKeys" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "publicKey" TEXT NOT NULL,
    "privateKey" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PushVapidKeys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PushSubscription" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "endpoint" TEXT NOT NULL,
    "p256dh" TEXT NOT NULL,
    "auth" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "userAgent" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastPushAt" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "failureCount" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "PushSubscription_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PushOutbox" (
    "id" BIGSERIAL NOT NULL,
    "subscriptionId" UUID NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "eventKind" TEXT NOT NULL,
    "sessionId" UUID,
    "promptId" UUID,
    "tag" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "urgency" TEXT NOT NULL,
    "ttlSeconds" INTEGER NOT NULL,
    "payload" JSONB NOT NULL,
    "status" "OutboxStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMPTZ(3),

    CONSTRAINT "PushOutbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PushSubscription_endpoint_key" ON "PushSubscription"("endpoint");

-- CreateIndex
CREATE INDEX "PushSubscription_userId_idx" ON "PushSubscription"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "PushOutbox_dedupeKey_key" ON "PushOutbox"("dedupeKey");

-- CreateIndex
CREATE INDEX "PushOutbox_status_nextAttemptAt_idx" ON "PushOutbox"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "PushOutbox_tag_idx" ON "PushOutbox"("tag");

-- CreateIndex
CREATE INDEX "PushOutbox_subscriptionId_idx" ON "PushOutbox"("subscriptionId");

-- CreateIndex
CREATE INDEX "WebSession_visibleSessionId_idx" ON "WebSession"("visibleSessionId");

-- AddForeignKey
ALTER TABLE "PushSubscription" ADD CONSTRAINT "PushSubscription_userId_fkey" FOREIGN KEY ("userId") REFERENCES "DashboardUser"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PushOutbox" ADD CONSTRAINT "PushOutbox_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "PushSubscription"("id") ON DELETE CASCADE ON UPDATE CASCADE;

