import { describe, expect, it } from 'vitest';
import { budgetLevel, budgetNotice, budgetWarning, dayStart, type LimitFact, spendHold, usageDay } from './spend-gate.ts';

const NOW = new Date('2026-12-07T10:00:00Z');
const LATER = new Date('2026-12-07T15:00:00Z');
const EARLIER = new Date('2026-12-07T09:00:00Z');

describe('budgetLevel', () => {
  const table: [number, number | null, ReturnType<typeof budgetLevel>][] = [
    [0, null, 'off'],
    [1000, null, 'off'],
    [0, 10, 'ok'],
    [7.99, 10, 'ok'],
    [8, 10, 'warn'],
    [9.99, 10, 'warn'],
    [10, 10, 'reached'],
    [12, 10, 'reached'],
    // A budget of 0 stops everything at once.
    [0, 0, 'reached'],
  ];
  for (const [spent, budget, level] of table) it(`$${spent} of ${budget ?? 'no budget'} → ${level}`, () => expect(budgetLevel(spent, budget)).toBe(level));
});

describe('budgetWarning', () => {
  const table: [string, { sessionUsd: number | null; dayUsd: number | null }, [number, number], unknown][] = [
    ['no budgets', { sessionUsd: null, dayUsd: null }, [100, 100], null],
    ['session under 80 %', { sessionUsd: 10, dayUsd: null }, [7.99, 0], null],
    ['session at 80 %', { sessionUsd: 10, dayUsd: null }, [8, 0], { scope: 'session', budgetUsd: 10, spentUsd: 8 }],
    ['session reached: the hold says it, no warning', { sessionUsd: 10, dayUsd: null }, [10, 0], null],
    ['day at 90 %', { sessionUsd: null, dayUsd: 20 }, [1, 18], { scope: 'day', budgetUsd: 20, spentUsd: 18 }],
    ['both near: the session first', { sessionUsd: 10, dayUsd: 20 }, [9, 17], { scope: 'session', budgetUsd: 10, spentUsd: 9 }],
    ['session near, day reached: no warning', { sessionUsd: 10, dayUsd: 20 }, [9, 20], null],
  ];
  for (const [name, budgets, [sessionUsd, dayUsd], out] of table) it(name, () => expect(budgetWarning(budgets, { sessionUsd, dayUsd })).toEqual(out));
});

describe('spendHold', () => {
  const none = { sessionUsd: null, dayUsd: null };
  const limit = (reached: boolean, resetsAt: Date | null): LimitFact => ({ reached, resetsAt });
  const table: {
    name: string;
    limit: LimitFact | null;
    budgets: { sessionUsd: number | null; dayUsd: number | null };
    spent: [number, number];
    out: unknown;
  }[] = [
    { name: 'nothing known', limit: null, budgets: none, spent: [0, 0], out: null },
    {
      name: 'limit reached, resets later → waits until the reset',
      limit: limit(true, LATER),
      budgets: none,
      spent: [0, 0],
      out: { kind: 'usage_limit', resetsAt: LATER },
    },
    { name: 'limit reached, reset passed → goes', limit: limit(true, EARLIER), budgets: none, spent: [0, 0], out: null },
    { name: 'limit reached, reset exactly now → goes', limit: limit(true, NOW), budgets: none, spent: [0, 0], out: null },
    { name: 'limit reached without a reset time → goes (the CLI answers)', limit: limit(true, null), budgets: none, spent: [0, 0], out: null },
    { name: 'limit not reached → goes', limit: limit(false, LATER), budgets: none, spent: [0, 0], out: null },
    { name: 'session budget under → goes', limit: null, budgets: { sessionUsd: 5, dayUsd: null }, spent: [4.99, 100], out: null },
    {
      name: 'session budget reached → budget',
      limit: null,
      budgets: { sessionUsd: 5, dayUsd: null },
      spent: [5, 5],
      out: { kind: 'budget_reached', scope: 'session', budgetUsd: 5, spentUsd: 5 },
    },
    {
      name: 'day budget reached → budget',
      limit: null,
      budgets: { sessionUsd: null, dayUsd: 20 },
      spent: [1, 21],
      out: { kind: 'budget_reached', scope: 'day', budgetUsd: 20, spentUsd: 21 },
    },
    {
      name: 'both reached → the session first',
      limit: null,
      budgets: { sessionUsd: 5, dayUsd: 20 },
      spent: [6, 21],
      out: { kind: 'budget_reached', scope: 'session', budgetUsd: 5, spentUsd: 6 },
    },
    {
      name: 'limit and budget → the limit first (it ends on its own)',
      limit: limit(true, LATER),
      budgets: { sessionUsd: 5, dayUsd: null },
      spent: [6, 6],
      out: { kind: 'usage_limit', resetsAt: LATER },
    },
    { name: 'day budget warn only → goes', limit: null, budgets: { sessionUsd: null, dayUsd: 20 }, spent: [0, 19], out: null },
  ];
  for (const c of table) {
    it(c.name, () => {
      expect(spendHold({ limit: c.limit, budgets: c.budgets, spent: { sessionUsd: c.spent[0], dayUsd: c.spent[1] }, now: NOW })).toEqual(c.out);
    });
  }
});

describe('budgetNotice', () => {
  const table: [number, number, number | null, ReturnType<typeof budgetNotice>][] = [
    [0, 7, 10, null],
    [7, 8, 10, 'warn'],
    [8, 9, 10, null],
    [9, 10, 10, 'reached'],
    [7, 11, 10, 'reached'],
    [10, 12, 10, null],
    [0, 100, null, null],
  ];
  for (const [before, after, budget, out] of table)
    it(`$${before} → $${after} of ${budget} → ${out}`, () => expect(budgetNotice(before, after, budget)).toBe(out));
});

describe('usage days are UTC days', () => {
  it('a time just before midnight UTC belongs to its UTC day', () => {
    expect(usageDay(new Date('2026-12-07T23:59:59.999Z'))).toBe('2026-12-07');
    expect(dayStart(new Date('2026-12-07T23:59:59Z')).toISOString()).toBe('2026-12-07T00:00:00.000Z');
  });
});
