import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clockTimers, every, subscribeClock } from './clock.ts';

describe('the page clock', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse('2026-03-01T12:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds one timer for many subscribers and wakes each at its own pace', () => {
    const fast: number[] = [];
    const slow: number[] = [];
    const offs = [...Array.from({ length: 50 }, () => subscribeClock(every(1_000), (t) => fast.push(t))), subscribeClock(every(30_000), (t) => slow.push(t))];
    expect(clockTimers()).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(60_000);
    expect(fast.length).toBe(50 * 60);
    expect(slow.length).toBe(2);
    expect(vi.getTimerCount()).toBe(1);
    for (const off of offs) off();
    expect(clockTimers()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('follows a changing delay and stops calling after unsubscribing', () => {
    const calls: number[] = [];
    const start = Date.now();
    const off = subscribeClock(
      (now) => (now - start < 10_000 ? 5_000 : 60_000),
      (t) => calls.push(t - start),
    );
    vi.advanceTimersByTime(130_000);
    expect(calls).toEqual([5_000, 10_000, 70_000, 130_000]);
    off();
    vi.advanceTimersByTime(600_000);
    expect(calls).toHaveLength(4);
  });
});
