import { describe, expect, it } from 'vitest';
import { costOf, estimateCost, PRICE_TABLE, priceFor, priceOverrideProblems, reportedTokens, type TokenCounts } from './usage-prices.ts';

const T = (input: number, output: number, cacheRead = 0, cacheWrite = 0): TokenCounts => ({ input, output, cacheRead, cacheWrite });

describe('priceFor', () => {
  const table: [string | null, Record<string, { input: number; output: number; cacheRead: number; cacheWrite: number }>, number | null][] = [
    ['claude-sonnet-4-5', {}, 3],
    ['claude-sonnet-4-5-20250929', {}, 3],
    ['claude-opus-4-5-20251101', {}, 5],
    ['claude-opus-4-20250514', {}, 15],
    ['gpt-5-codex', {}, 1.25],
    // Never a price by resemblance: a newer model is unknown until someone adds it.
    ['claude-opus-4-6', {}, null],
    ['claude-sonnet-4-5-latest', {}, null],
    ['gpt-5-codex-2', {}, null],
    ['mock-model', {}, null],
    [null, {}, null],
    ['', {}, null],
    // An override wins over the table, and prices a model the table does not know.
    ['gpt-5-codex', { 'gpt-5-codex': { input: 2, output: 0, cacheRead: 0, cacheWrite: 0 } }, 2],
    ['mock-model', { 'mock-model': { input: 7, output: 0, cacheRead: 0, cacheWrite: 0 } }, 7],
    ['claude-haiku-4-5-20251001', { 'claude-haiku-4-5': { input: 9, output: 0, cacheRead: 0, cacheWrite: 0 } }, 9],
  ];
  for (const [model, overrides, input] of table) {
    it(`${model} with ${Object.keys(overrides).join(',') || 'no'} overrides → ${input ?? 'unknown'}`, () => {
      expect(priceFor(model, overrides)?.input ?? null).toBe(input);
    });
  }
  it('every table price has the four kinds, cache reads cheaper than input', () => {
    for (const p of Object.values(PRICE_TABLE)) expect(p.cacheRead).toBeLessThan(p.input);
  });
});

describe('costOf and estimateCost', () => {
  it('prices each kind apart, per million tokens', () => {
    // Sonnet 4.5: 1M input $3, 1M output $15, 1M cache read $0.30, 1M cache write $3.75.
    expect(costOf(T(1_000_000, 1_000_000, 1_000_000, 1_000_000), priceFor('claude-sonnet-4-5'))).toBeCloseTo(22.05, 10);
    expect(costOf(T(2000, 500, 10_000, 0), priceFor('gpt-5-codex'))).toBeCloseTo(0.0025 + 0.005 + 0.00125, 10);
    expect(costOf(T(1, 1), null)).toBeNull();
  });
  it('leaves unknown models out of the sum and says so', () => {
    const e = estimateCost([
      { model: 'claude-sonnet-4-5', tokens: T(1_000_000, 0) },
      { model: 'mock-model', tokens: T(10, 5, 3, 2) },
      { model: null, tokens: T(1, 0) },
    ]);
    expect(e.usd).toBeCloseTo(3, 10);
    expect(e.unpricedTokens).toBe(21);
    expect(e.unpricedModels).toEqual(['', 'mock-model']);
  });
});

describe('reportedTokens', () => {
  it('reads this version’s four kinds', () => {
    expect(reportedTokens({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 100, cacheWriteTokens: 20 })).toEqual(T(10, 5, 100, 20));
  });
  it('reads an older agent’s report as input and cache reads', () => {
    expect(reportedTokens({ inputTokens: 30, outputTokens: 5, cachedInputTokens: 100 })).toEqual(T(30, 5, 100, 0));
  });
  it('takes garbage as zero', () => {
    expect(reportedTokens({ inputTokens: -1, outputTokens: 'x', cacheReadTokens: Number.NaN })).toEqual(T(0, 0, 0, 0));
  });
});

describe('priceOverrideProblems', () => {
  it('accepts model → four prices', () => {
    expect(priceOverrideProblems({ 'my-model': { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 0 } })).toEqual([]);
  });
  const bad: [string, unknown][] = [
    ['an array', []],
    ['a negative price', { m: { input: -1, output: 0, cacheRead: 0, cacheWrite: 0 } }],
    ['a missing price', { m: { input: 1, output: 0, cacheRead: 0 } }],
    ['an extra field', { m: { input: 1, output: 0, cacheRead: 0, cacheWrite: 0, x: 1 } }],
    ['a name with spaces', { 'a b': { input: 1, output: 0, cacheRead: 0, cacheWrite: 0 } }],
  ];
  for (const [what, v] of bad) it(`refuses ${what}`, () => expect(priceOverrideProblems(v).length).toBeGreaterThan(0));
});
