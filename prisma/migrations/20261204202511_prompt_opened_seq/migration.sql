-- AlterTable
ALTER TABLE "PermissionPrompt" ADD COLUMN     "openedSeq" BIGINT;

