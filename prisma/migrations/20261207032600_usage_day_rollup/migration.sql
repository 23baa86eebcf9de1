-- CreateTable
CREATE TABLE "UsageDay" (
    "day" DATE NOT NULL,
    "sessionId" UUID NOT NULL,
    "model" TEXT NOT NULL DEFAULT '',
    "nodeId" UUID NOT NULL,
    "executor" "Executor" NOT NULL,
    "turns" INTEGER NOT NULL,
    "inputTokens" BIGINT NOT NULL,
    "outputTokens" BIGINT NOT NULL,
    "cacheReadTokens" BIGINT NOT NULL,
    "cacheWriteTokens" BIGINT NOT NULL,
    "lastAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "UsageDay_pkey" PRIMARY KEY ("day","sessionId","model")
);

-- CreateIndex
CREATE INDEX "UsageDay_sessionId_idx" ON "UsageDay"("sessionId");


-- Written by hand: every TurnUsage row adds itself to its (UTC day, session, model) row of
-- UsageDay in the same statement, so the rollup can never miss or double a turn (a TurnUsage row is
-- inserted once: its eventId is unique).
CREATE FUNCTION turn_usage_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "UsageDay" ("day", "sessionId", "model", "nodeId", "executor", "turns", "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "lastAt")
  VALUES ((NEW."at" AT TIME ZONE 'UTC')::date, NEW."sessionId", COALESCE(NEW."model", ''), NEW."nodeId", NEW."executor", 1,
    NEW."inputTokens", NEW."outputTokens", NEW."cacheReadTokens", NEW."cacheWriteTokens", NEW."at")
  ON CONFLICT ("day", "sessionId", "model") DO UPDATE SET
    "turns" = "UsageDay"."turns" + 1,
    "inputTokens" = "UsageDay"."inputTokens" + EXCLUDED."inputTokens",
    "outputTokens" = "UsageDay"."outputTokens" + EXCLUDED."outputTokens",
    "cacheReadTokens" = "UsageDay"."cacheReadTokens" + EXCLUDED."cacheReadTokens",
    "cacheWriteTokens" = "UsageDay"."cacheWriteTokens" + EXCLUDED."cacheWriteTokens",
    "lastAt" = GREATEST("UsageDay"."lastAt", EXCLUDED."lastAt");
  RETURN NULL;
END $$;

CREATE TRIGGER turn_usage_rollup AFTER INSERT ON "TurnUsage" FOR EACH ROW EXECUTE FUNCTION turn_usage_rollup();

-- Turns stored before this migration.
INSERT INTO "UsageDay" ("day", "sessionId", "model", "nodeId", "executor", "turns", "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "lastAt")
SELECT ("at" AT TIME ZONE 'UTC')::date, "sessionId", COALESCE("model", ''), min("nodeId"::text)::uuid, min("executor"::text)::"Executor", count(*),
  sum("inputTokens"), sum("outputTokens"), sum("cacheReadTokens"), sum("cacheWriteTokens"), max("at")
FROM "TurnUsage" GROUP BY 1, 2, 3;
