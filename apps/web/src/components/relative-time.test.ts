import { describe, expect, it } from 'vitest';
import { nextChangeMs, relativeTime, shortDate } from './relative-time.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const at = (ageMs: number) => new Date(T0 - ageMs).toISOString();

describe('nextChangeMs', () => {
  // For each age: the text stays the same until just before the returned delay and changes at it.
  it.each([0, 400, 2_300, 2_600, 59_400, 59_999, 60_000, 95_000, 30 * 60_000 + 12_345, 59.7 * 60_000, 5 * 3_600_000 + 1, 3 * 86_400_000])(
    'is exactly when the text of a time %i ms old changes',
    (age) => {
      const iso = at(age);
      const delay = nextChangeMs(iso, T0);
      const shown = relativeTime(iso, 'en', T0);
      expect(delay).toBeGreaterThan(0);
      if (delay < 3_600_000) {
        expect(relativeTime(iso, 'en', T0 + delay - 2)).toBe(shown);
        expect(relativeTime(iso, 'en', T0 + delay)).not.toBe(shown);
      }
    },
  );

  it('waits at most an hour, also for old or unreadable dates', () => {
    expect(nextChangeMs(at(400 * 86_400_000), T0)).toBe(3_600_000);
    expect(nextChangeMs('not a date', T0)).toBe(3_600_000);
    expect(nextChangeMs(at(20 * 3_600_000), T0)).toBeLessThanOrEqual(3_600_000);
  });
});

describe('relativeTime', () => {
  it('reads as the locale says it, next to an absolute date for the title', () => {
    expect(relativeTime(at(5_000), 'en', T0)).toBe('5 seconds ago');
    expect(relativeTime(at(5_000), 'ru', T0)).toBe('5 секунд назад');
    expect(relativeTime(at(3 * 60_000), 'en', T0)).toBe('3 minutes ago');
    expect(shortDate(at(0), 'en')).toMatch(/2026/);
  });
});
