-- CreateTable
CREATE TABLE "PushAnswerToken" (
    "id" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "promptId" UUID NOT NULL,
    "subscriptionId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "usedDecision" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PushAnswerToken_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PushAnswerToken_tokenHash_key" ON "PushAnswerToken"("tokenHash");

-- CreateIndex
CREATE INDEX "PushAnswerToken_promptId_idx" ON "PushAnswerToken"("promptId");

-- CreateIndex
CREATE INDEX "PushAnswerToken_expiresAt_idx" ON "PushAnswerToken"("expiresAt");

-- AddForeignKey
ALTER TABLE "PushAnswerToken" ADD CONSTRAINT "PushAnswerToken_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "PushSubscription"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PushAnswerToken" ADD CONSTRAINT "PushAnswerToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "DashboardUser"("id") ON DELETE CASCADE ON UPDATE CASCADE;

