import { AppError, type ModelPrice, PRICE_TABLE, PRICES_AS_OF, PRICES_SOURCE, priceOverrideProblems } from '../../domain/index.ts';
import type { Db } from '../../db/client.ts';
import { readUsageSettings, sessionsWithPending, type UsageSettingsDto, writeUsageSettings } from '../../db/repos/usage.ts';

export type { UsageSettingsDto };

/** The highest budget accepted, in US dollars (a typo guard, not a policy). */
export const MAX_BUDGET_USD = 1_000_000;

export interface PriceBookDto {
  asOf: string;
  source: string;
  /** The repository's table, model → price per million tokens. */
  table: Record<string, ModelPrice>;
  overrides: Record<string, ModelPrice>;
}

export async function getUsageSettings(deps: { db: Db }): Promise<UsageSettingsDto & { prices: PriceBookDto }> {
  const s = await readUsageSettings(deps.db);
  return { ...s, prices: { asOf: PRICES_AS_OF, source: PRICES_SOURCE, table: { ...PRICE_TABLE }, overrides: s.priceOverrides } };
}

function budgetOf(name: string, v: number | null | undefined): number | null | undefined {
  if (v === undefined || v === null) return v;
  if (!Number.isFinite(v) || v < 0 || v > MAX_BUDGET_USD)
    throw new AppError('INVALID_INPUT', { message: `${name} must be from 0 to ${MAX_BUDGET_USD} US dollars` });
  return v;
}

/**
 * Prices and budgets. Prices replace the whole override object (checked: model → four prices per
 * million tokens). A changed budget wakes every session with a waiting message (NOTIFY at commit):
 * a message held because the budget was reached goes as soon as the new budget allows it.
 */
export async function updateUsageSettings(
  deps: { db: Db },
  patch: { priceOverrides?: unknown; budgetSessionUsd?: number | null; budgetDayUsd?: number | null },
): Promise<UsageSettingsDto & { prices: PriceBookDto }> {
  if (patch.priceOverrides !== undefined) {
    const problems = priceOverrideProblems(patch.priceOverrides);
    if (problems.length > 0) throw new AppError('INVALID_INPUT', { message: `prices: ${problems.slice(0, 5).join('; ')}` });
  }
  const budgetSessionUsd = budgetOf('the session budget', patch.budgetSessionUsd);
  const budgetDayUsd = budgetOf('the daily budget', patch.budgetDayUsd);
  await deps.db.$transaction(async (tx) => {
    await writeUsageSettings(tx, {
      ...(patch.priceOverrides === undefined ? {} : { priceOverrides: patch.priceOverrides as Record<string, ModelPrice> }),
      ...(budgetSessionUsd === undefined ? {} : { budgetSessionUsd }),
      ...(budgetDayUsd === undefined ? {} : { budgetDayUsd }),
    });
    for (const id of await sessionsWithPending(tx)) await tx.$executeRaw`select pg_notify('bria_session_wake', ${id}::text)`;
  });
  return getUsageSettings(deps);
}
