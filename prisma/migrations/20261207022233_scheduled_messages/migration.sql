-- CreateTable
CREATE TABLE "ScheduledMessage" (
    "id" UUID NOT NULL,
    "sessionId" UUID NOT NULL,
    "text" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "cron" TEXT,
    "timeZone" TEXT NOT NULL,
    "nextRunAt" TIMESTAMPTZ(3),
    "ifBusy" TEXT NOT NULL DEFAULT 'wait',
    "resumeIfClosed" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'active',
    "createdFrom" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "skips" INTEGER NOT NULL DEFAULT 0,
    "lastRunAt" TIMESTAMPTZ(3),
    "lastResult" TEXT,
    "lastMessageId" UUID,
    "leaseUntil" TIMESTAMPTZ(3),

    CONSTRAINT "ScheduledMessage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ScheduledMessage_status_nextRunAt_idx" ON "ScheduledMessage"("status", "nextRunAt");

-- CreateIndex
CREATE INDEX "ScheduledMessage_sessionId_idx" ON "ScheduledMessage"("sessionId");

-- AddForeignKey
ALTER TABLE "ScheduledMessage" ADD CONSTRAINT "ScheduledMessage_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

