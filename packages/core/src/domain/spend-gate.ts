/**
 * Whether the next message may go as far as limits and money are concerned (issue 33): the CLI's own
 * usage limit (read from its journal) and the user's optional budgets. Pure: the engine reads the
 * facts (the latest limit state of the session's computer and CLI, the estimated spend) and asks.
 */

/** The latest limit state of one CLI account on one computer, as its journal last showed it. */
export interface LimitFact {
  /** The CLI refused work for a usage limit (Claude's "limit reached", a Codex window at 100 %). */
  reached: boolean;
  /** When the limit resets, if the CLI said; without it nothing is known to wait for. */
  resetsAt: Date | null;
}

/** US dollars; null = no budget of that kind. */
export interface Budgets {
  sessionUsd: number | null;
  dayUsd: number | null;
}

/** Estimated spend (unknown prices count 0: never invented) of the session and of today (UTC). */
export interface Spent {
  sessionUsd: number;
  dayUsd: number;
}

export type BudgetScope = 'session' | 'day';
export type BudgetLevel = 'off' | 'ok' | 'warn' | 'reached';

/** Share of a budget from which the user is warned once. */
export const BUDGET_WARN_SHARE = 0.8;

export type SpendHold = { kind: 'usage_limit'; resetsAt: Date } | { kind: 'budget_reached'; scope: BudgetScope; budgetUsd: number; spentUsd: number };

/** Where `spentUsd` stands against a budget: off without one, reached at 100 %, warn from 80 %. */
export function budgetLevel(spentUsd: number, budgetUsd: number | null): BudgetLevel {
  if (budgetUsd === null) return 'off';
  if (spentUsd >= budgetUsd) return 'reached';
  if (spentUsd >= budgetUsd * BUDGET_WARN_SHARE) return 'warn';
  return 'ok';
}

/** Whether a known usage limit holds now: reached, with a reset time still ahead. */
export function limitHolds(limit: LimitFact | null, now: Date): limit is LimitFact & { resetsAt: Date } {
  return limit?.reached === true && limit.resetsAt !== null && now.getTime() < limit.resetsAt.getTime();
}

/**
 * Why the next message must wait, or null when it may go. A usage limit with a known reset comes
 * first (it ends on its own, at a time the user sees); then the session's budget, then the day's.
 * A limit reached without a reset time holds nothing: the CLI answers such a message itself.
 */
export function spendHold(f: { limit: LimitFact | null; budgets: Budgets; spent: Spent; now: Date }): SpendHold | null {
  if (limitHolds(f.limit, f.now)) return { kind: 'usage_limit', resetsAt: f.limit.resetsAt };
  for (const scope of ['session', 'day'] as const) {
    const budgetUsd = scope === 'session' ? f.budgets.sessionUsd : f.budgets.dayUsd;
    const spentUsd = scope === 'session' ? f.spent.sessionUsd : f.spent.dayUsd;
    if (budgetLevel(spentUsd, budgetUsd) === 'reached') return { kind: 'budget_reached', scope, budgetUsd: budgetUsd as number, spentUsd };
  }
  return null;
}

/** A budget the spend is near (`budgetWarning`). */
export interface BudgetWarning {
  scope: BudgetScope;
  budgetUsd: number;
  spentUsd: number;
}
/**
 * The budget the spend is close to (80 % or more, not yet reached), for a standing warning: the
 * session's first, then the day's. Null when none is near, or when one is already reached (the hold
 * says that).
 */
export function budgetWarning(budgets: Budgets, spent: Spent): BudgetWarning | null {
  const levels = (['session', 'day'] as const).map((scope) => {
    const budgetUsd = scope === 'session' ? budgets.sessionUsd : budgets.dayUsd;
    const spentUsd = scope === 'session' ? spent.sessionUsd : spent.dayUsd;
    return { scope, budgetUsd, spentUsd, level: budgetLevel(spentUsd, budgetUsd) };
  });
  if (levels.some((l) => l.level === 'reached')) return null;
  const near = levels.find((l) => l.level === 'warn');
  return near && near.budgetUsd !== null ? { scope: near.scope, budgetUsd: near.budgetUsd, spentUsd: near.spentUsd } : null;
}

/**
 * The budget notice a turn's cost calls for: the level after it when that is warn or reached and it
 * was lower before. The caller still keys the notice by (scope, day or session, level, budget), so
 * it is sent once even if two turns cross together.
 */
export function budgetNotice(beforeUsd: number, afterUsd: number, budgetUsd: number | null): 'warn' | 'reached' | null {
  const after = budgetLevel(afterUsd, budgetUsd);
  const before = budgetLevel(beforeUsd, budgetUsd);
  if (after === 'reached' && before !== 'reached') return 'reached';
  if (after === 'warn' && before === 'ok') return 'warn';
  return null;
}

/** The UTC day a time belongs to (`YYYY-MM-DD`): days of usage and the day budget are UTC days. */
export const usageDay = (at: Date): string => at.toISOString().slice(0, 10);
/** Start of the UTC day of `at`. */
export const dayStart = (at: Date): Date => new Date(`${usageDay(at)}T00:00:00.000Z`);
