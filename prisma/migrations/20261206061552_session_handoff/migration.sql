-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "deskCommand" TEXT,
ADD COLUMN     "deskInTmux" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "deskPid" INTEGER,
ADD COLUMN     "deskSeenAt" TIMESTAMPTZ(3),
ADD COLUMN     "deskSince" TIMESTAMPTZ(3),
ADD COLUMN     "deskStart" TEXT,
ADD COLUMN     "handoff" TEXT NOT NULL DEFAULT 'none';

