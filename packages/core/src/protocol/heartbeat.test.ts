import { describe, expect, it } from 'vitest';
import { HeartbeatJudge } from './heartbeat.ts';

describe('HeartbeatJudge', () => {
  it('drops a peer silent for more than three intervals, on a beat that came on time', () => {
    const j = new HeartbeatJudge(1000, 0);
    const b = j.beat(1000);
    expect(b.lateMs).toBeNull();
    expect(b.silent(-2001)).toBe(true);
    expect(b.silent(-1999)).toBe(false);
  });

  it('a beat more than 1.5 intervals after the last judges no one, and the next one judges again', () => {
    const j = new HeartbeatJudge(1000, 0);
    const late = j.beat(5000);
    expect(late.lateMs).toBe(4000);
    expect(late.silent(0)).toBe(false);
    const next = j.beat(6000);
    expect(next.lateMs).toBeNull();
    expect(next.silent(0)).toBe(true);
    expect(j.beat(7500).lateMs).toBeNull(); // exactly 1.5 intervals is still on time
  });
});
