
-- CreateEnum
CREATE TYPE "Executor" AS ENUM ('claude', 'codex');

-- CreateEnum
CREATE TYPE "SessionState" AS ENUM ('Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork', 'AwaitingRecovery', 'Closing', 'Archived', 'ResumeFailed');

-- CreateEnum
CREATE TYPE "MessageStatus" AS ENUM ('pending', 'leased', 'accepted', 'completed', 'terminal_failed', 'failed', 'unknown');

-- CreateEnum
CREATE TYPE "CommandStatus" AS ENUM ('pending', 'sent', 'acked', 'done', 'failed');

-- CreateEnum
CREATE TYPE "OutboxStatus" AS ENUM ('pending', 'sending', 'sent', 'failed');

-- CreateTable
CREATE TABLE "Node" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "hostname" TEXT,
    "isLocal" BOOLEAN NOT NULL DEFAULT false,
    "enabledExecutors" "Executor"[] DEFAULT ARRAY['claude', 'codex']::"Executor"[],
    "permissionMode" TEXT NOT NULL DEFAULT 'default',
    "online" BOOLEAN NOT NULL DEFAULT false,
    "connectedAt" TIMESTAMPTZ(3),
    "lastSeenAt" TIMESTAMPTZ(3),
    "disconnectedAt" TIMESTAMPTZ(3),
    "agentVersion" TEXT,
    "agentInstanceId" TEXT,
    "lastEventSeq" BIGINT NOT NULL DEFAULT 0,
    "discoveredAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Node_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentToken" (
    "id" UUID NOT NULL,
    "nodeId" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "label" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "AgentToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" UUID NOT NULL,
    "nodeId" UUID NOT NULL,
    "executor" "Executor" NOT NULL,
    "folder" TEXT NOT NULL,
    "nativeSessionId" TEXT,
    "state" "SessionState" NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "resumeState" "SessionState",
    "launchSource" TEXT NOT NULL DEFAULT 'bria',
    "permissionMode" TEXT NOT NULL DEFAULT 'default',
    "title" TEXT,
    "firstPrompt" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lifetimeStartedAt" TIMESTAMPTZ(3),
    "lifetimeDeadline" TIMESTAMPTZ(3),
    "lifetimeExpired" BOOLEAN NOT NULL DEFAULT false,
    "lastActivityAt" TIMESTAMPTZ(3),
    "archivedAt" TIMESTAMPTZ(3),
    "observerGeneration" INTEGER NOT NULL DEFAULT 0,
    "identity" JSONB,
    "usage" JSONB,
    "journalPath" TEXT,
    "nativeStartedAt" TIMESTAMPTZ(3),
    "nativeLastActivity" TIMESTAMPTZ(3),
    "userTurns" INTEGER NOT NULL DEFAULT 0,
    "lastResumeError" TEXT,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Message" (
    "id" UUID NOT NULL,
    "sessionId" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "sourceKey" TEXT,
    "text" TEXT NOT NULL,
    "attachments" JSONB,
    "status" "MessageStatus" NOT NULL DEFAULT 'pending',
    "leaseOwner" TEXT,
    "leaseUntil" TIMESTAMPTZ(3),
    "deliveryId" UUID,
    "acceptedAt" TIMESTAMPTZ(3),
    "nativeTurnId" TEXT,
    "nativeRecordId" TEXT,
    "mainMessageId" UUID,
    "finalText" TEXT,
    "outcomeAt" TIMESTAMPTZ(3),
    "outcomeDetail" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SessionEvidence" (
    "id" BIGSERIAL NOT NULL,
    "sessionId" UUID NOT NULL,
    "fromState" "SessionState",
    "toState" "SessionState",
    "event" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "evidence" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SessionEvidence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ArchiveCopy" (
    "sessionId" UUID NOT NULL,
    "path" TEXT NOT NULL,
    "sizeBytes" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ArchiveCopy_pkey" PRIMARY KEY ("sessionId")
);

-- CreateTable
CREATE TABLE "AgentCommand" (
    "id" UUID NOT NULL,
    "nodeId" UUID NOT NULL,
    "sessionId" UUID,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" "CommandStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "result" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMPTZ(3),
    "ackedAt" TIMESTAMPTZ(3),
    "doneAt" TIMESTAMPTZ(3),

    CONSTRAINT "AgentCommand_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentEvent" (
    "id" BIGSERIAL NOT NULL,
    "nodeId" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processedAt" TIMESTAMPTZ(3),

    CONSTRAINT "AgentEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Settings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "lifetimeHours" INTEGER DEFAULT 12,
    "resumeRecommendations" BOOLEAN NOT NULL DEFAULT false,
    "allowedTelegramUsers" BIGINT[] DEFAULT ARRAY[]::BIGINT[],
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Settings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TelegramChat" (
    "chatId" BIGINT NOT NULL,
    "userId" BIGINT NOT NULL,
    "language" TEXT,
    "selectedNodeId" UUID,
    "cardMessageId" INTEGER,
    "cardSessionId" UUID,
    "cardGeneration" INTEGER NOT NULL DEFAULT 0,
    "flow" JSONB,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "TelegramChat_pkey" PRIMARY KEY ("chatId")
);

-- CreateTable
CREATE TABLE "ChatNodeState" (
    "chatId" BIGINT NOT NULL,
    "nodeId" UUID NOT NULL,
    "activeSessionId" UUID,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ChatNodeState_pkey" PRIMARY KEY ("chatId","nodeId")
);

-- CreateTable
CREATE TABLE "Outbox" (
    "id" BIGSERIAL NOT NULL,
    "channel" TEXT NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "chatId" BIGINT,
    "sessionId" UUID,
    "payload" JSONB NOT NULL,
    "status" "OutboxStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "externalId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMPTZ(3),

    CONSTRAINT "Outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DashboardUser" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "telegramUserId" BIGINT,
    "language" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DashboardUser_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LoginToken" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LoginToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebSession" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "csrfToken" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "revokedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebSession_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AgentToken_tokenHash_key" ON "AgentToken"("tokenHash");

-- CreateIndex
CREATE INDEX "AgentToken_nodeId_idx" ON "AgentToken"("nodeId");

-- CreateIndex
CREATE INDEX "Session_nodeId_state_idx" ON "Session"("nodeId", "state");

-- CreateIndex
CREATE INDEX "Session_nodeId_nativeLastActivity_idx" ON "Session"("nodeId", "nativeLastActivity");

-- CreateIndex
CREATE UNIQUE INDEX "Session_nodeId_executor_nativeSessionId_key" ON "Session"("nodeId", "executor", "nativeSessionId");

-- CreateIndex
CREATE UNIQUE INDEX "Message_sourceKey_key" ON "Message"("sourceKey");

-- CreateIndex
CREATE INDEX "Message_sessionId_status_idx" ON "Message"("sessionId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "Message_sessionId_seq_key" ON "Message"("sessionId", "seq");

-- CreateIndex
CREATE INDEX "SessionEvidence_sessionId_id_idx" ON "SessionEvidence"("sessionId", "id");

-- CreateIndex
CREATE INDEX "AgentCommand_nodeId_status_createdAt_idx" ON "AgentCommand"("nodeId", "status", "createdAt");

-- CreateIndex
CREATE INDEX "AgentEvent_processedAt_idx" ON "AgentEvent"("processedAt");

-- CreateIndex
CREATE UNIQUE INDEX "AgentEvent_nodeId_seq_key" ON "AgentEvent"("nodeId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "Outbox_dedupeKey_key" ON "Outbox"("dedupeKey");

-- CreateIndex
CREATE INDEX "Outbox_status_nextAttemptAt_idx" ON "Outbox"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "DashboardUser_telegramUserId_key" ON "DashboardUser"("telegramUserId");

-- CreateIndex
CREATE UNIQUE INDEX "LoginToken_tokenHash_key" ON "LoginToken"("tokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "WebSession_tokenHash_key" ON "WebSession"("tokenHash");

-- AddForeignKey
ALTER TABLE "AgentToken" ADD CONSTRAINT "AgentToken_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "Node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "Node"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SessionEvidence" ADD CONSTRAINT "SessionEvidence_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ArchiveCopy" ADD CONSTRAINT "ArchiveCopy_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentCommand" ADD CONSTRAINT "AgentCommand_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "Node"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentCommand" ADD CONSTRAINT "AgentCommand_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentEvent" ADD CONSTRAINT "AgentEvent_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "Node"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChatNodeState" ADD CONSTRAINT "ChatNodeState_chatId_fkey" FOREIGN KEY ("chatId") REFERENCES "TelegramChat"("chatId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LoginToken" ADD CONSTRAINT "LoginToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "DashboardUser"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebSession" ADD CONSTRAINT "WebSession_userId_fkey" FOREIGN KEY ("userId") REFERENCES "DashboardUser"("id") ON DELETE CASCADE ON UPDATE CASCADE;

