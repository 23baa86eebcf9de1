-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "activity" JSONB,
ADD COLUMN     "activityAt" TIMESTAMPTZ(3),
ADD COLUMN     "compactions" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "contextUsed" INTEGER,
ADD COLUMN     "contextWindow" INTEGER,
ADD COLUMN     "contextWindowSource" TEXT;

-- AlterTable
ALTER TABLE "TelegramChat" ADD COLUMN     "cardActivityAt" TIMESTAMPTZ(3),
ADD COLUMN     "cardEditedAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "SessionActivity" (
    "id" BIGSERIAL NOT NULL,
    "sessionId" UUID NOT NULL,
    "ref" TEXT NOT NULL,
    "nativeTurnId" TEXT,
    "messageId" UUID,
    "kind" TEXT NOT NULL,
    "toolName" TEXT,
    "subject" TEXT,
    "status" TEXT NOT NULL,
    "exitCode" INTEGER,
    "outputHead" TEXT,
    "diffAdded" INTEGER,
    "diffRemoved" INTEGER,
    "diffText" TEXT,
    "text" TEXT,
    "sourceRecordId" TEXT NOT NULL,
    "sourceOffset" BIGINT NOT NULL,
    "eventSeq" BIGINT NOT NULL,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "endedAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SessionActivity_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SessionActivity_sessionId_nativeTurnId_idx" ON "SessionActivity"("sessionId", "nativeTurnId");

-- CreateIndex
CREATE UNIQUE INDEX "SessionActivity_sessionId_ref_key" ON "SessionActivity"("sessionId", "ref");

-- AddForeignKey
ALTER TABLE "SessionActivity" ADD CONSTRAINT "SessionActivity_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

