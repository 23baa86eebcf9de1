import { describe, expect, it } from 'vitest';
import { compact, dayBars, usd } from './spend-format.ts';

const T = (input: number) => ({ input, output: 0, cacheRead: 0, cacheWrite: 0 });

describe('dayBars', () => {
  it('has every day of the period, each computer a segment, empty days empty', () => {
    const bars = dayBars(
      [
        { day: '2026-12-05', nodeId: 'a', tokens: T(10) },
        { day: '2026-12-05', nodeId: 'b', tokens: T(5) },
        { day: '2026-12-07', nodeId: 'b', tokens: T(7) },
      ],
      { from: '2026-12-05T00:00:00.000Z', to: '2026-12-08T00:00:00.000Z' },
      ['a', 'b'],
    );
    expect(bars).toEqual([
      {
        day: '2026-12-05',
        segments: [
          { nodeId: 'a', tokens: 10 },
          { nodeId: 'b', tokens: 5 },
        ],
        total: 15,
      },
      { day: '2026-12-06', segments: [], total: 0 },
      { day: '2026-12-07', segments: [{ nodeId: 'b', tokens: 7 }], total: 7 },
    ]);
  });
});

describe('money and counts', () => {
  it('an estimate below a cent keeps four digits; above, two', () => {
    expect(usd(0.0042, 'en')).toBe('$0.0042');
    expect(usd(0.0123, 'en')).toBe('$0.01');
    expect(usd(12.345, 'en')).toBe('$12.35');
    expect(usd(0, 'en')).toBe('$0.00');
  });
  it('compact token counts', () => {
    expect(compact(1234, 'en')).toBe('1.2K');
    expect(compact(2_500_000, 'en')).toBe('2.5M');
  });
});
