-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "gitBaseBranch" TEXT,
ADD COLUMN     "gitBaseCommit" TEXT,
ADD COLUMN     "worktreeBranch" TEXT,
ADD COLUMN     "worktreePath" TEXT,
ADD COLUMN     "worktreeRemovedAt" TIMESTAMPTZ(3),
ADD COLUMN     "worktreeRepo" TEXT;

