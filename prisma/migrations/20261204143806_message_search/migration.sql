-- Full-text search over the conversation (issue 16): a column the database keeps up to date itself
-- from the prompt and its final ('simple' configuration: Russian and English alike, no stemming;
-- prefixes are searched with `:*`). schema.prisma declares it as an optional tsvector; the drift
-- check compares type and nullability, which a generated column shares.
ALTER TABLE "Message" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (to_tsvector('simple', coalesce("text", '') || ' ' || coalesce("finalText", ''))) STORED;

-- CreateIndex
CREATE INDEX "Message_search_idx" ON "Message" USING GIN ("search");
