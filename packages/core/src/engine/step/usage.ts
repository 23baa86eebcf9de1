import {
  type BudgetScope,
  type BudgetWarning,
  budgetNotice,
  budgetWarning,
  dayStart,
  estimateCost,
  type LimitFact,
  type SpendHold,
  type Spent,
  spendHold,
  type TokenCounts,
  usageDay,
} from '../../domain/index.ts';
import type { SessionRow, Tx } from '../../db/repos/sessions.ts';
import { scheduleTimer } from '../../db/repos/timers.ts';
import {
  insertTurnUsage,
  readUsageLimit,
  readUsageSettings,
  sessionTokensByModel,
  tokensByModelSince,
  type UsageSettingsDto,
  upsertUsageLimit,
} from '../../db/repos/usage.ts';
import type { LimitStatePayload } from '../../protocol/index.ts';
import { notifyChats } from './session-notices.ts';
import type { StepContext } from './step-context.ts';

/** Estimated spend of a session and of the current UTC day (unknown prices count 0). */
async function spentNow(tx: Tx, sessionId: string, now: Date, s: UsageSettingsDto): Promise<Spent> {
  const [session, day] = await Promise.all([sessionTokensByModel(tx, sessionId), tokensByModelSince(tx, dayStart(now))]);
  return { sessionUsd: estimateCost(session, s.priceOverrides).usd, dayUsd: estimateCost(day, s.priceOverrides).usd };
}

/**
 * Keeps one turn's tokens (once per event) and, when a budget is set and this turn moved its level
 * to 80 % or 100 %, tells the session's chats once (the key holds the scope, the day or session, the
 * level and the budget, so a raised budget warns again).
 */
export async function recordTurnUsage(
  ctx: StepContext,
  row: SessionRow,
  ev: { id: bigint },
  u: { tokens: TokenCounts; model: string | null; messageId: string | null },
): Promise<void> {
  const settings = await readUsageSettings(ctx.tx);
  const budgeted = settings.budgetSessionUsd !== null || settings.budgetDayUsd !== null;
  const before = budgeted ? await spentNow(ctx.tx, row.id, ctx.now, settings) : null;
  await insertTurnUsage(ctx.tx, {
    eventId: ev.id,
    sessionId: row.id,
    nodeId: row.nodeId,
    messageId: u.messageId,
    executor: row.executor,
    model: u.model,
    at: ctx.now,
    tokens: u.tokens,
  });
  if (!before) return;
  const after = await spentNow(ctx.tx, row.id, ctx.now, settings);
  for (const scope of ['session', 'day'] as const satisfies readonly BudgetScope[]) {
    const budgetUsd = scope === 'session' ? settings.budgetSessionUsd : settings.budgetDayUsd;
    const level = budgetNotice(before[`${scope}Usd`], after[`${scope}Usd`], budgetUsd);
    if (!level || budgetUsd === null) continue;
    const of = scope === 'session' ? row.id : usageDay(ctx.now);
    await notifyChats(ctx.tx, row, ctx.now, () => ({
      key: `budget:${scope}:${of}:${level}:${budgetUsd}`,
      payload: { kind: 'budget', sessionId: row.id, nodeId: row.nodeId, scope, level, budgetUsd, spentUsd: Math.round(after[`${scope}Usd`] * 100) / 100 },
    }));
  }
}

/** Stores a CLI's usage-limit signal as the latest state of that CLI on the computer. */
export async function recordLimitState(ctx: StepContext, nodeId: string, p: LimitStatePayload): Promise<boolean> {
  return upsertUsageLimit(ctx.tx, {
    nodeId,
    executor: p.executor,
    reached: p.reached,
    resetsAt: p.resetsAt === undefined ? null : new Date(p.resetsAt),
    windows: p.windows,
    text: p.text ?? null,
    observedAt: new Date(p.at),
  });
}

/** What holds the next message for limits and money (`spendHold`, domain), from the stored facts. */
export async function readSpendHold(tx: Tx, row: Pick<SessionRow, 'id' | 'nodeId' | 'executor'>, now: Date): Promise<SpendHold | null> {
  return (await readSpendState(tx, row, now)).hold;
}

/** The hold, and the budget the spend is near (80 % or more: `budgetWarning`) for the session page's warning. */
export async function readSpendState(
  tx: Tx,
  row: Pick<SessionRow, 'id' | 'nodeId' | 'executor'>,
  now: Date,
): Promise<{ hold: SpendHold | null; warning: BudgetWarning | null }> {
  const [limitRow, settings] = await Promise.all([readUsageLimit(tx, row.nodeId, row.executor), readUsageSettings(tx)]);
  const limit: LimitFact | null = limitRow ? { reached: limitRow.reached, resetsAt: limitRow.resetsAt } : null;
  const budgets = { sessionUsd: settings.budgetSessionUsd, dayUsd: settings.budgetDayUsd };
  const budgeted = budgets.sessionUsd !== null || budgets.dayUsd !== null;
  const spent = budgeted ? await spentNow(tx, row.id, now, settings) : { sessionUsd: 0, dayUsd: 0 };
  return { hold: spendHold({ limit, budgets, spent, now }), warning: budgetWarning(budgets, spent) };
}

/**
 * The pump found its message held by `hold`: a usage limit with its reset ahead wakes the pump at
 * the reset (a durable timer; the reset time is also in `UsageLimit`). A budget waits for the user,
 * whose raise wakes the pumps (`updateUsageSettings`).
 */
export async function wakeAtReset(tx: Tx, sessionId: string, hold: SpendHold): Promise<void> {
  if (hold.kind === 'usage_limit') await scheduleTimer(tx, { sessionId, name: 'limit_reset', dueAt: hold.resetsAt });
}

/** Wakes the pumps of the sessions of one CLI on one computer that have a message waiting. */
export async function wakeWaitingSessions(tx: Tx, nodeId: string, executor: 'claude' | 'codex'): Promise<void> {
  await tx.$executeRaw`
    select pg_notify('bria_session_wake', s.id::text) from "Session" s
    where s."nodeId" = ${nodeId}::uuid and s.executor = ${executor}::"Executor"
      and exists (select 1 from "Message" m where m."sessionId" = s.id and m.status = 'pending')`;
}
