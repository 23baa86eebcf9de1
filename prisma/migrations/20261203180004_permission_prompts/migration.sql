-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "openPrompts" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "PermissionPrompt" (
    "id" UUID NOT NULL,
    "sessionId" UUID NOT NULL,
    "generation" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "toolInput" JSONB NOT NULL,
    "justification" TEXT,
    "canAlwaysAllow" BOOLEAN NOT NULL DEFAULT false,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "answer" JSONB,
    "answerId" UUID,
    "answeredFrom" TEXT,
    "answeredAt" TIMESTAMPTZ(3),
    "receivedAt" TIMESTAMPTZ(3) NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "resolvedAt" TIMESTAMPTZ(3),
    "resolution" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PermissionPrompt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PermissionPrompt_sessionId_state_idx" ON "PermissionPrompt"("sessionId", "state");

-- AddForeignKey
ALTER TABLE "PermissionPrompt" ADD CONSTRAINT "PermissionPrompt_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The dashboard's live updates: a prompt opened, answered or ended redraws its session's page.
CREATE TRIGGER "PermissionPrompt_notify_change" AFTER INSERT OR UPDATE ON "PermissionPrompt"
  FOR EACH ROW EXECUTE FUNCTION bria_notify_session_child_change();
