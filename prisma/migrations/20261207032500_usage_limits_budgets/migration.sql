-- CreateTable
CREATE TABLE "TurnUsage" (
    "id" BIGSERIAL NOT NULL,
    "eventId" BIGINT NOT NULL,
    "sessionId" UUID NOT NULL,
    "nodeId" UUID NOT NULL,
    "messageId" UUID,
    "executor" "Executor" NOT NULL,
    "model" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "inputTokens" INTEGER NOT NULL,
    "outputTokens" INTEGER NOT NULL,
    "cacheReadTokens" INTEGER NOT NULL,
    "cacheWriteTokens" INTEGER NOT NULL,

    CONSTRAINT "TurnUsage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UsageLimit" (
    "nodeId" UUID NOT NULL,
    "executor" "Executor" NOT NULL,
    "account" TEXT NOT NULL DEFAULT '',
    "reached" BOOLEAN NOT NULL,
    "resetsAt" TIMESTAMPTZ(3),
    "windows" JSONB NOT NULL DEFAULT '[]',
    "text" TEXT,
    "observedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "UsageLimit_pkey" PRIMARY KEY ("nodeId","executor","account")
);

-- CreateTable
CREATE TABLE "UsageSettings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "priceOverrides" JSONB NOT NULL DEFAULT '{}',
    "budgetSessionUsd" DOUBLE PRECISION,
    "budgetDayUsd" DOUBLE PRECISION,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "UsageSettings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "TurnUsage_eventId_key" ON "TurnUsage"("eventId");

-- CreateIndex
CREATE INDEX "TurnUsage_sessionId_at_idx" ON "TurnUsage"("sessionId", "at");

-- CreateIndex
CREATE INDEX "TurnUsage_at_idx" ON "TurnUsage"("at");

-- CreateIndex
CREATE INDEX "TurnUsage_nodeId_at_idx" ON "TurnUsage"("nodeId", "at");

