-- AlterTable
ALTER TABLE "Node" ADD COLUMN     "executorVersions" TEXT[] DEFAULT ARRAY[]::TEXT[];

