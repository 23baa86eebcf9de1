import { describe, expect, it } from 'vitest';
import { StrangerRefusals } from './stranger-refusals.ts';

describe('StrangerRefusals', () => {
  it('refuses each stranger once per UTC day, again on the next day', () => {
    const r = new StrangerRefusals();
    const morning = new Date('2026-12-03T00:00:01Z');
    const night = new Date('2026-12-03T23:59:59Z');
    expect([r.take(1, morning), r.take(1, morning), r.take(2, morning), r.take(1, night), r.take(2, night)]).toEqual([true, false, true, false, false]);
    const tomorrow = new Date('2026-12-04T00:00:00Z');
    expect([r.take(1, tomorrow), r.take(1, tomorrow), r.take(2, tomorrow)]).toEqual([true, false, true]);
  });

  it('stays bounded: past its size, new strangers that day get no refusal', () => {
    const r = new StrangerRefusals(2);
    const now = new Date('2026-12-03T12:00:00Z');
    expect([1, 2, 3, 4].map((id) => r.take(id, now))).toEqual([true, true, false, false]);
    expect(r.take(3, new Date('2026-12-04T12:00:00Z'))).toBe(true);
  });
});
