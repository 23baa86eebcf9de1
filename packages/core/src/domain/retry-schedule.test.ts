import { describe, expect, it } from 'vitest';
import { archiveCommitDelay, finalSaveDelay, MAX_RECOVERY_DELAY_MS, recoveryDelay, STOP_DRAIN_MS } from './retry-schedule.ts';

describe('final-save retry', () => {
  it('waits 1, 2, 4, 8, 16, 30 s, then every 30 s', () => {
    expect(Array.from({ length: 10 }, (_, i) => finalSaveDelay(i + 1) / 1000)).toEqual([1, 2, 4, 8, 16, 30, 30, 30, 30, 30]);
    expect(finalSaveDelay(10_000)).toBe(30_000);
    expect(archiveCommitDelay(3)).toBe(4000);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects attempt %s', (attempt) => {
    expect(() => finalSaveDelay(attempt)).toThrow(RangeError);
  });
});

describe('recovery backoff', () => {
  it('follows the fixed table without jitter, then stays at 60 s forever', () => {
    expect(Array.from({ length: 9 }, (_, i) => recoveryDelay(i, 0.5) / 1000)).toEqual([1, 2, 5, 10, 30, 60, 60, 60, 60]);
    expect(recoveryDelay(1_000_000, 0.5)).toBe(60_000);
  });

  it('jitter spreads by at most ±20 % and is bounded overall', () => {
    expect(recoveryDelay(0, 0)).toBe(800);
    expect(recoveryDelay(5, 0)).toBe(48_000);
    expect(recoveryDelay(5, 0.999_999)).toBeLessThanOrEqual(MAX_RECOVERY_DELAY_MS);
    expect(MAX_RECOVERY_DELAY_MS).toBe(72_000);
    for (let i = 0; i < 50; i++) {
      const d = recoveryDelay(i, (i * 0.37) % 1);
      expect(d).toBeGreaterThanOrEqual(800);
      expect(d).toBeLessThanOrEqual(MAX_RECOVERY_DELAY_MS);
    }
  });

  it.each([-0.1, 1, Number.NaN])('rejects jitter %s', (jitter) => {
    expect(() => recoveryDelay(0, jitter)).toThrow(RangeError);
  });

  it('bounds the stop drain', () => {
    expect(STOP_DRAIN_MS).toBe(15_000);
  });
});
