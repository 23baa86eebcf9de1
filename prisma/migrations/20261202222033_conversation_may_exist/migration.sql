-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "conversationMayExist" BOOLEAN NOT NULL DEFAULT false;

