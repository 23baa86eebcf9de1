-- AlterTable
ALTER TABLE "AgentEvent" ADD COLUMN     "commandId" UUID,
ADD COLUMN     "sessionId" UUID;

-- Backfill from the stored frames (the hub validated both as UUIDs; anything else stays null).
UPDATE "AgentEvent" SET
  "sessionId" = CASE WHEN payload->>'sessionId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN (payload->>'sessionId')::uuid END,
  "commandId" = CASE WHEN payload->>'commandId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN (payload->>'commandId')::uuid END
WHERE payload->>'sessionId' IS NOT NULL OR payload->>'commandId' IS NOT NULL;

-- CreateIndex
CREATE INDEX "AgentEvent_sessionId_type_id_idx" ON "AgentEvent"("sessionId", "type", "id");

-- CreateIndex
CREATE INDEX "AgentEvent_commandId_idx" ON "AgentEvent"("commandId");

