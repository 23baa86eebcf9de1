-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "archiveSortAt" TIMESTAMPTZ(3),
ADD COLUMN     "deferredEventIds" BIGINT[] DEFAULT ARRAY[]::BIGINT[],
ADD COLUMN     "exitVerified" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "finalSaveAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "originChatId" BIGINT,
ADD COLUMN     "pendingFinalEventId" BIGINT;

-- CreateTable
CREATE TABLE "SessionTimer" (
    "id" UUID NOT NULL,
    "sessionId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "dueAt" TIMESTAMPTZ(3) NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "claimedUntil" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SessionTimer_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SessionTimer_dueAt_idx" ON "SessionTimer"("dueAt");

-- CreateIndex
CREATE UNIQUE INDEX "SessionTimer_sessionId_name_key" ON "SessionTimer"("sessionId", "name");

-- CreateIndex
CREATE INDEX "Session_nodeId_state_archiveSortAt_id_idx" ON "Session"("nodeId", "state", "archiveSortAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Session_nodeId_executor_folder_state_idx" ON "Session"("nodeId", "executor", "folder", "state");

-- CreateIndex
CREATE INDEX "Message_sessionId_nativeTurnId_idx" ON "Message"("sessionId", "nativeTurnId");

-- CreateIndex
CREATE INDEX "AgentEvent_nodeId_processedAt_seq_idx" ON "AgentEvent"("nodeId", "processedAt", "seq");

-- CreateIndex
CREATE INDEX "Outbox_channel_status_nextAttemptAt_idx" ON "Outbox"("channel", "status", "nextAttemptAt");

-- AddForeignKey
ALTER TABLE "SessionTimer" ADD CONSTRAINT "SessionTimer_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

