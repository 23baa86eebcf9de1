-- CreateTable
CREATE TABLE "VoiceNote" (
    "id" UUID NOT NULL,
    "sessionId" UUID NOT NULL,
    "chatId" BIGINT,
    "source" TEXT NOT NULL,
    "sourceKey" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "transcript" TEXT,
    "failure" TEXT,
    "failureWords" TEXT,
    "fileName" TEXT NOT NULL,
    "mime" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "sizeBytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "messageId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "VoiceNote_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "VoiceNote_sourceKey_key" ON "VoiceNote"("sourceKey");

-- CreateIndex
CREATE INDEX "VoiceNote_chatId_state_idx" ON "VoiceNote"("chatId", "state");

-- AddForeignKey
ALTER TABLE "VoiceNote" ADD CONSTRAINT "VoiceNote_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

