-- AlterEnum
ALTER TYPE "MessageStatus" ADD VALUE 'cancelled';

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "originalText" TEXT;

