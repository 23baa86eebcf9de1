-- AlterTable
ALTER TABLE "Node" ADD COLUMN     "removedAt" TIMESTAMPTZ(3);

