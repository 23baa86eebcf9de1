import type { Executor } from '../../protocol/messages.ts';
import type { ModelPrice, TokenCounts } from '../../domain/index.ts';
import type { DbOrTx } from './sessions.ts';

/** One turn's tokens; stored once per agent event. */
export async function insertTurnUsage(
  db: DbOrTx,
  u: { eventId: bigint; sessionId: string; nodeId: string; messageId: string | null; executor: Executor; model: string | null; at: Date; tokens: TokenCounts },
): Promise<void> {
  await db.$executeRaw`
    insert into "TurnUsage" ("eventId", "sessionId", "nodeId", "messageId", executor, model, at, "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")
    values (${u.eventId}, ${u.sessionId}::uuid, ${u.nodeId}::uuid, ${u.messageId}::uuid, ${u.executor}::"Executor", ${u.model}, ${u.at},
      ${u.tokens.input}, ${u.tokens.output}, ${u.tokens.cacheRead}, ${u.tokens.cacheWrite})
    on conflict ("eventId") do nothing`;
}

export interface ModelTokens {
  model: string | null;
  tokens: TokenCounts;
  turns: number;
}

type SumRow = {
  model: string | null;
  input: bigint | number;
  output: bigint | number;
  cacheRead: bigint | number;
  cacheWrite: bigint | number;
  turns: bigint | number;
};
/** Sums over `UsageDay` rows (the per-day rollup the trigger keeps from TurnUsage). */
// Sums as float8 (exact for any token count below 2^53): a numeric sum reaches JavaScript as a
// Decimal object per cell, which costs more than the sums themselves (2,800 rows: ~150 ms).
const SUMS = `nullif(model, '') as model, sum("inputTokens")::float8 as input, sum("outputTokens")::float8 as output,
  sum("cacheReadTokens")::float8 as "cacheRead", sum("cacheWriteTokens")::float8 as "cacheWrite", sum(turns)::float8 as turns`;
const toModelTokens = (r: SumRow): ModelTokens => ({
  model: r.model,
  tokens: { input: Number(r.input), output: Number(r.output), cacheRead: Number(r.cacheRead), cacheWrite: Number(r.cacheWrite) },
  turns: Number(r.turns),
});

/** Token sums per model of one session (for its budget and its page). */
export async function sessionTokensByModel(db: DbOrTx, sessionId: string): Promise<ModelTokens[]> {
  const rows = await db.$queryRawUnsafe<SumRow[]>(`select ${SUMS} from "UsageDay" where "sessionId" = $1::uuid group by model`, sessionId);
  return rows.map(toModelTokens);
}

/** Token sums per model from the UTC day of `from` on (the day budget: today). */
export async function tokensByModelSince(db: DbOrTx, from: Date): Promise<ModelTokens[]> {
  const rows = await db.$queryRawUnsafe<SumRow[]>(
    `select ${SUMS} from "UsageDay" where day >= ($1::timestamptz at time zone 'UTC')::date group by model`,
    from,
  );
  return rows.map(toModelTokens);
}

/** Sums per UTC day, computer and model for the days in [from, to) (whole UTC days): the Usage page's chart. */
export async function usageByDayNodeModel(db: DbOrTx, q: { from: Date; to: Date }): Promise<(ModelTokens & { day: string; nodeId: string })[]> {
  const rows = await db.$queryRawUnsafe<(SumRow & { day: Date; nodeId: string })[]>(
    `select day, "nodeId"::text as "nodeId", ${SUMS}
     from "UsageDay" where day >= ($1::timestamptz at time zone 'UTC')::date and day < ($2::timestamptz at time zone 'UTC')::date
     group by day, "nodeId", model order by day`,
    q.from,
    q.to,
  );
  return rows.map((r) => ({ ...toModelTokens(r), day: r.day.toISOString().slice(0, 10), nodeId: r.nodeId }));
}

/**
 * Sums per session and model for the days in [from, to), for the sessions with the most tokens (at
 * most `limit` sessions), with the session's title, executor and computer.
 */
export async function usageBySession(
  db: DbOrTx,
  q: { from: Date; to: Date; limit: number },
): Promise<(ModelTokens & { sessionId: string; nodeId: string; executor: Executor; title: string | null; lastAt: Date })[]> {
  const rows = await db.$queryRawUnsafe<(SumRow & { sessionId: string; nodeId: string; executor: Executor; title: string | null; lastAt: Date })[]>(
    `with g as (
       select "sessionId", min("nodeId"::text) as "nodeId", min(executor::text) as executor, max("lastAt") as "lastAt", ${SUMS}
       from "UsageDay" where day >= ($1::timestamptz at time zone 'UTC')::date and day < ($2::timestamptz at time zone 'UTC')::date
       group by "sessionId", model),
     totals as (select g.*, sum(input + output + "cacheRead" + "cacheWrite") over (partition by "sessionId") as total from g),
     ranked as (select totals.*, dense_rank() over (order by total desc, "sessionId") as rank from totals)
     select r."sessionId"::text as "sessionId", r."nodeId", r.executor, s.title, r."lastAt", r.model,
       r.input, r.output, r."cacheRead", r."cacheWrite", r.turns
     from ranked r left join "Session" s on s.id = r."sessionId" where r.rank <= $3`,
    q.from,
    q.to,
    q.limit,
  );
  return rows.map((r) => ({ ...toModelTokens(r), sessionId: r.sessionId, nodeId: r.nodeId, executor: r.executor, title: r.title, lastAt: r.lastAt }));
}

export interface LimitWindow {
  name: string;
  usedPercent: number;
  windowMinutes?: number | undefined;
  resetsAt?: number | undefined;
}

export interface UsageLimitDto {
  nodeId: string;
  executor: Executor;
  account: string;
  reached: boolean;
  resetsAt: Date | null;
  windows: LimitWindow[];
  text: string | null;
  observedAt: Date;
}

const limitSelect = { nodeId: true, executor: true, account: true, reached: true, resetsAt: true, windows: true, text: true, observedAt: true } as const;
const toLimit = (r: { windows: unknown } & Omit<UsageLimitDto, 'windows'>): UsageLimitDto => ({
  ...r,
  windows: Array.isArray(r.windows) ? (r.windows as LimitWindow[]) : [],
});

/** Keeps the newest report of a CLI account on a computer; an older one (replayed) changes nothing. */
export async function upsertUsageLimit(db: DbOrTx, l: Omit<UsageLimitDto, 'account'> & { account?: string }): Promise<boolean> {
  const account = l.account ?? '';
  const data = { reached: l.reached, resetsAt: l.resetsAt, windows: l.windows as object[], text: l.text, observedAt: l.observedAt };
  const moved = await db.usageLimit.updateMany({ where: { nodeId: l.nodeId, executor: l.executor, account, observedAt: { lte: l.observedAt } }, data });
  if (moved.count > 0) return true;
  const created = await db.usageLimit.createMany({ data: [{ nodeId: l.nodeId, executor: l.executor, account, ...data }], skipDuplicates: true });
  return created.count > 0;
}

export async function readUsageLimit(db: DbOrTx, nodeId: string, executor: Executor): Promise<UsageLimitDto | null> {
  const rows = await db.usageLimit.findMany({ where: { nodeId, executor }, select: limitSelect, orderBy: { observedAt: 'desc' }, take: 1 });
  return rows[0] ? toLimit(rows[0]) : null;
}

export async function listUsageLimits(db: DbOrTx): Promise<UsageLimitDto[]> {
  const rows = await db.usageLimit.findMany({ select: limitSelect, orderBy: [{ nodeId: 'asc' }, { executor: 'asc' }] });
  return rows.map(toLimit);
}

export interface UsageSettingsDto {
  priceOverrides: Record<string, ModelPrice>;
  budgetSessionUsd: number | null;
  budgetDayUsd: number | null;
}

export async function readUsageSettings(db: DbOrTx): Promise<UsageSettingsDto> {
  const row = await db.usageSettings.findUnique({ where: { id: 1 }, select: { priceOverrides: true, budgetSessionUsd: true, budgetDayUsd: true } });
  if (!row) return { priceOverrides: {}, budgetSessionUsd: null, budgetDayUsd: null };
  const o = row.priceOverrides;
  return {
    priceOverrides: typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as unknown as Record<string, ModelPrice>) : {},
    budgetSessionUsd: row.budgetSessionUsd,
    budgetDayUsd: row.budgetDayUsd,
  };
}

export async function writeUsageSettings(db: DbOrTx, patch: Partial<UsageSettingsDto>): Promise<UsageSettingsDto> {
  const data = {
    ...(patch.priceOverrides === undefined ? {} : { priceOverrides: patch.priceOverrides as object }),
    ...(patch.budgetSessionUsd === undefined ? {} : { budgetSessionUsd: patch.budgetSessionUsd }),
    ...(patch.budgetDayUsd === undefined ? {} : { budgetDayUsd: patch.budgetDayUsd }),
  };
  await db.usageSettings.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
  return readUsageSettings(db);
}

/** Sessions with a message waiting in the queue (a raised budget wakes their pumps). */
export async function sessionsWithPending(db: DbOrTx): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`select distinct "sessionId"::text as id from "Message" where status = 'pending'`;
  return rows.map((r) => r.id);
}
