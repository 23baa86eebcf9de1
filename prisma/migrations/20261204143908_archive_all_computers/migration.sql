-- CreateIndex
CREATE INDEX "Session_state_archiveSortAt_id_idx" ON "Session"("state", "archiveSortAt" DESC, "id" DESC);

