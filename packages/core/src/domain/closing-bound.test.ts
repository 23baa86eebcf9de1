import { describe, expect, it } from 'vitest';
import { closeRetryDelay } from './retry-schedule.ts';
import { transition } from './session-machine.ts';
import { commands, fact, run } from './testing/run.ts';
import { snapshotIn } from './testing/fixtures.ts';

const t = (ms: number) => new Date(Date.UTC(2026, 8, 2, 9) + ms);
const idle = { inFlight: false, waiting: false };

describe('Closing never waits on a reconnection alone', () => {
  it('entering Closing schedules a re-ask of the close; an unproven close is asked again every minute', () => {
    const closing = run(snapshotIn('Ready', { queue: idle }), [{ event: { type: 'close_requested' }, at: t(0) }]);
    expect(closing.snapshot.state).toBe('Closing');
    expect(closing.effects[0]).toContainEqual({ type: 'schedule', timer: 'close_retry', at: t(closeRetryDelay(0)), attempt: 0 });
    // The agent answered, but could not verify the exit (a process lingers): nothing else would ask again.
    const unproven = run(closing.snapshot, [{ event: fact('observer_lost'), at: t(10_000) }]);
    expect(unproven.snapshot).toMatchObject({ state: 'Closing', exitVerified: false });
    let s = unproven.snapshot;
    for (let attempt = 0; attempt < 5; attempt++) {
      const r = transition(s, { type: 'close_retry_due', attempt }, t(60_000 * (attempt + 1)));
      if (!r.ok) throw new Error(r.refusal.code);
      expect(commands(r.effects)).toEqual(['close']);
      expect(r.effects).toContainEqual({ type: 'schedule', timer: 'close_retry', at: t(60_000 * (attempt + 2)), attempt: attempt + 1 });
      s = { ...r.next, version: r.next.version + 1 };
      expect(s.state).toBe('Closing');
    }
  });

  it('a proven exit stops the re-asks; archiving cancels the timer', () => {
    const closing = run(snapshotIn('Ready', { queue: idle }), [
      { event: { type: 'close_requested' }, at: t(0) },
      { event: fact('process_exited_verified'), at: t(1_000) },
    ]);
    const r = transition(closing.snapshot, { type: 'close_retry_due', attempt: 0 }, t(60_000));
    expect(r.ok && commands(r.effects)).toEqual([]);
    const archived = run(closing.snapshot, [{ event: { type: 'archive_committed' }, at: t(2_000) }]);
    expect(archived.snapshot.state).toBe('Archived');
    expect(archived.effects[0]).toContainEqual({ type: 'cancel', timer: 'close_retry' });
  });
});
