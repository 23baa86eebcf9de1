-- CreateTable
CREATE TABLE "AgentDeadLetter" (
    "id" BIGSERIAL NOT NULL,
    "nodeId" UUID NOT NULL,
    "seq" BIGINT,
    "reason" TEXT NOT NULL,
    "excerpt" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AgentDeadLetter_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AgentDeadLetter_nodeId_receivedAt_idx" ON "AgentDeadLetter"("nodeId", "receivedAt");

-- CreateIndex
CREATE INDEX "AgentDeadLetter_receivedAt_idx" ON "AgentDeadLetter"("receivedAt");

-- AddForeignKey
ALTER TABLE "AgentDeadLetter" ADD CONSTRAINT "AgentDeadLetter_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "Node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

