-- AlterTable
ALTER TABLE "Node" ADD COLUMN     "agentCapabilities" TEXT[] DEFAULT ARRAY[]::TEXT[];

