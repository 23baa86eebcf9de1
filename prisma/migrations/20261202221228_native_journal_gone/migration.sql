-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "nativeGoneAt" TIMESTAMPTZ(3);

