-- Per-executor permission modes (core protocol/session-choices.ts). Values stored before the
-- closed lists are rewritten to the mode they launched: Claude accept-edits → acceptEdits,
-- full-access → bypassPermissions; Codex default / accept-edits → workspace-write (on-request),
-- full-access stays full-access (never + danger-full-access).

-- AlterTable
ALTER TABLE "Node" ADD COLUMN     "claudePermissionMode" TEXT NOT NULL DEFAULT 'default',
ADD COLUMN     "codexPermissionMode" TEXT NOT NULL DEFAULT 'workspace-write',
ADD COLUMN     "unavailableModes" TEXT[] DEFAULT ARRAY[]::TEXT[];

UPDATE "Node" SET
  "claudePermissionMode" = CASE "permissionMode" WHEN 'accept-edits' THEN 'acceptEdits' WHEN 'full-access' THEN 'bypassPermissions' ELSE 'default' END,
  "codexPermissionMode" = CASE "permissionMode" WHEN 'full-access' THEN 'full-access' ELSE 'workspace-write' END;

ALTER TABLE "Node" DROP COLUMN "permissionMode";

-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "model" TEXT;

UPDATE "Session" SET "permissionMode" = CASE
  WHEN "executor" = 'claude' AND "permissionMode" = 'accept-edits' THEN 'acceptEdits'
  WHEN "executor" = 'claude' AND "permissionMode" = 'full-access' THEN 'bypassPermissions'
  WHEN "executor" = 'claude' AND "permissionMode" IN ('default', 'acceptEdits', 'plan', 'bypassPermissions') THEN "permissionMode"
  WHEN "executor" = 'claude' THEN 'default'
  WHEN "permissionMode" IN ('workspace-write', 'read-only', 'full-access') THEN "permissionMode"
  ELSE 'workspace-write' END;
