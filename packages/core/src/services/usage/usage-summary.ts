import { addTokens, dayStart, estimateCost, type ModelPrice, type TokenCounts, ZERO_TOKENS } from '../../domain/index.ts';
import type { Db } from '../../db/client.ts';
import { listUsageLimits, readUsageSettings, tokensByModelSince, type UsageLimitDto, usageByDayNodeModel, usageBySession } from '../../db/repos/usage.ts';
import type { Executor } from '../../protocol/messages.ts';

export const USAGE_MAX_DAYS = 90;
export const USAGE_TOP_SESSIONS = 50;
const DAY_MS = 86_400_000;

/** Tokens, turns and the estimated cost of a group (cost over the priced models only). */
export interface SpendDto {
  tokens: TokenCounts;
  turns: number;
  costUsd: number;
  /** Tokens of models without a price: the cost is at least `costUsd`. */
  unpricedTokens: number;
}

export interface UsageSummaryDto {
  from: Date;
  to: Date;
  days: (SpendDto & { day: string; nodeId: string })[];
  nodes: { id: string; name: string }[];
  sessions: (SpendDto & { sessionId: string; nodeId: string; executor: Executor; title: string | null; lastAt: Date })[];
  totals: SpendDto;
  today: SpendDto;
  limits: (UsageLimitDto & { nodeName: string })[];
  budgets: { sessionUsd: number | null; dayUsd: number | null };
  unpricedModels: string[];
}

type Group = { model: string | null; tokens: TokenCounts; turns: number };
function spendOf(groups: Group[], overrides: Record<string, ModelPrice>): SpendDto {
  const cost = estimateCost(groups, overrides);
  return {
    tokens: groups.reduce((t, g) => addTokens(t, g.tokens), ZERO_TOKENS),
    turns: groups.reduce((n, g) => n + g.turns, 0),
    costUsd: cost.usd,
    unpricedTokens: cost.unpricedTokens,
  };
}

function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) m.set(key(r), [...(m.get(key(r)) ?? []), r]);
  return m;
}

/**
 * The Usage page: per UTC day and computer, the top sessions, totals and today, over the last
 * `days` days (1…90), with every computer's latest limit state. Tokens are SQL sums per model; the
 * cost is priced here (table + overrides), so a changed price applies to the past too.
 */
export async function getUsageSummary(deps: { db: Db; now?: () => Date }, input: { days: number }): Promise<UsageSummaryDto> {
  const now = deps.now?.() ?? new Date();
  const days = Math.min(USAGE_MAX_DAYS, Math.max(1, Math.floor(input.days)));
  const to = new Date(dayStart(now).getTime() + DAY_MS);
  const from = new Date(to.getTime() - days * DAY_MS);
  const [settings, byDay, bySession, today, limits, nodes] = await Promise.all([
    readUsageSettings(deps.db),
    usageByDayNodeModel(deps.db, { from, to }),
    usageBySession(deps.db, { from, to, limit: USAGE_TOP_SESSIONS }),
    tokensByModelSince(deps.db, dayStart(now)),
    listUsageLimits(deps.db),
    deps.db.node.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } }),
  ]);
  const o = settings.priceOverrides;
  const dayRows = [...groupBy(byDay, (r) => `${r.day} ${r.nodeId}`).values()].map((g) => ({ day: g[0]!.day, nodeId: g[0]!.nodeId, ...spendOf(g, o) }));
  const sessionRows = [...groupBy(bySession, (r) => r.sessionId).values()]
    .map((g) => ({
      sessionId: g[0]!.sessionId,
      nodeId: g[0]!.nodeId,
      executor: g[0]!.executor,
      title: g[0]!.title,
      lastAt: new Date(Math.max(...g.map((r) => r.lastAt.getTime()))),
      ...spendOf(g, o),
    }))
    .sort((a, b) => b.costUsd - a.costUsd || total(b.tokens) - total(a.tokens));
  const byModel = [...groupBy(byDay, (r) => r.model ?? '').values()].map((g) => ({
    model: g[0]!.model,
    tokens: g.reduce((t, r) => addTokens(t, r.tokens), ZERO_TOKENS),
    turns: g.reduce((n, r) => n + r.turns, 0),
  }));
  const names = new Map(nodes.map((n) => [n.id, n.name]));
  return {
    from,
    to,
    days: dayRows.sort((a, b) => a.day.localeCompare(b.day) || a.nodeId.localeCompare(b.nodeId)),
    nodes,
    sessions: sessionRows,
    totals: spendOf(byModel, o),
    today: spendOf(today, o),
    limits: limits.map((l) => ({ ...l, nodeName: names.get(l.nodeId) ?? '?' })),
    budgets: { sessionUsd: settings.budgetSessionUsd, dayUsd: settings.budgetDayUsd },
    unpricedModels: estimateCost(byModel, o).unpricedModels,
  };
}

const total = (t: TokenCounts) => t.input + t.output + t.cacheRead + t.cacheWrite;

/** Every computer's CLIs with their latest usage-limit state (the home page's list). */
export async function getUsageLimits(deps: { db: Db }): Promise<(UsageLimitDto & { nodeName: string })[]> {
  const [limits, nodes] = await Promise.all([listUsageLimits(deps.db), deps.db.node.findMany({ select: { id: true, name: true } })]);
  const names = new Map(nodes.map((n) => [n.id, n.name]));
  return limits.map((l) => ({ ...l, nodeName: names.get(l.nodeId) ?? '?' }));
}
