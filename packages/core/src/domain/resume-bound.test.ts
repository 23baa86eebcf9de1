import { describe, expect, it } from 'vitest';
import { RESUME_ANSWER_MS, RESUME_NO_ANSWER } from './retry-schedule.ts';
import { transition } from './session-machine.ts';
import { commands, fact, notices, run } from './testing/run.ts';
import { snapshotIn } from './testing/fixtures.ts';

const t = (ms: number) => new Date(Date.UTC(2026, 8, 2, 9) + ms);
const archived = () => snapshotIn('Archived', { lifetimeDeadline: null, resumeState: null });

describe('every resume ends: Ready, or ResumeFailed with one notice naming the cause', () => {
  it('a resume is bounded by a timer scheduled when it starts', () => {
    const r = run(archived(), [{ event: { type: 'resume_requested' }, at: t(0) }]);
    expect(r.effects[0]).toContainEqual({ type: 'schedule', timer: 'resume_timeout', at: t(RESUME_ANSWER_MS) });
  });

  it('no answer within the bound: ResumeFailed, one notice with the cause, then Archived with the record unchanged', () => {
    const before = archived();
    const r = run(before, [
      { event: { type: 'resume_requested' }, at: t(0) },
      { event: { type: 'resume_timed_out' }, at: t(RESUME_ANSWER_MS) },
    ]);
    expect(r.snapshot.state).toBe('ResumeFailed');
    expect(r.effects[1]).toContainEqual({ type: 'notify', kind: 'resume_failed', detail: RESUME_NO_ANSWER });
    expect(r.effects.flat().filter((e) => e.type === 'notify')).toHaveLength(1);
    const done = run(r.snapshot, [{ event: { type: 'resume_failure_reported' }, at: t(RESUME_ANSWER_MS + 1) }]);
    const { version: _v, observerGeneration: _g, ...rest } = done.snapshot;
    const { version: _v0, observerGeneration: _g0, ...was } = before;
    expect(rest).toEqual(was);
  });

  it('a confirmed or failed resume cancels the bound; a late timer changes nothing', () => {
    const ok = run(archived(), [
      { event: { type: 'resume_requested' }, at: t(0) },
      { event: fact('resume_confirmed', { lifetime: '12h' }), at: t(1) },
    ]);
    expect(ok.effects[1]).toContainEqual({ type: 'cancel', timer: 'resume_timeout' });
    expect(transition(ok.snapshot, { type: 'resume_timed_out' }, t(RESUME_ANSWER_MS))).toMatchObject({ ok: false, refusal: { code: 'ILLEGAL_TRANSITION' } });
    const failed = run(archived(), [
      { event: { type: 'resume_requested' }, at: t(0) },
      { event: fact('resume_failed', { cause: 'no such folder' }), at: t(1) },
    ]);
    expect(failed.effects[1]).toContainEqual({ type: 'cancel', timer: 'resume_timeout' });
  });

  it('a resume that lost its binding is recovered by resuming again, never by re-attaching to a CLI it never confirmed', () => {
    const lost = run(archived(), [
      { event: { type: 'resume_requested' }, at: t(0) },
      { event: { type: 'node_lost' }, at: t(1) },
    ]);
    expect(lost.snapshot).toMatchObject({ state: 'AwaitingRecovery', resumeState: 'Resuming' });
    // The bound keeps running: recovery cannot prolong the attempt.
    expect(lost.effects[1]).not.toContainEqual({ type: 'cancel', timer: 'resume_timeout' });
    const retry = run(lost.snapshot, [
      { event: { type: 'recovery_retry_due', attempt: 0 }, at: t(1000) },
      { event: { type: 'node_returned' }, at: t(2000) },
    ]);
    expect(retry.effects.map(commands)).toEqual([['resume'], ['resume']]);
    expect(retry.snapshot.state).toBe('AwaitingRecovery');
  });

  it('while recovering a resume, its failure or its bound ends it as ResumeFailed with one notice', () => {
    const lost = run(archived(), [
      { event: { type: 'resume_requested' }, at: t(0) },
      { event: fact('observer_lost'), at: t(1) },
    ]).snapshot;
    const failed = run(lost, [{ event: fact('resume_failed', { cause: 'folder /x does not exist' }), at: t(2) }]);
    expect(failed.snapshot.state).toBe('ResumeFailed');
    expect(failed.effects[0]).toContainEqual({ type: 'cancel', timer: 'recovery_retry' });
    expect(failed.effects[0]).toContainEqual({ type: 'cancel', timer: 'resume_timeout' });
    expect(notices(failed.effects[0] ?? [])).toEqual(['resume_failed']);
    const timedOut = run(lost, [{ event: { type: 'resume_timed_out' }, at: t(RESUME_ANSWER_MS) }]);
    expect(timedOut.snapshot.state).toBe('ResumeFailed');
    expect(timedOut.effects[0]).toContainEqual({ type: 'notify', kind: 'resume_failed', detail: RESUME_NO_ANSWER });
  });

  it('recovering any other state keeps re-attaching, and a resume failure there stays AwaitingRecovery', () => {
    const running = snapshotIn('AwaitingRecovery', { resumeState: 'Running' });
    const r = transition(running, { type: 'recovery_retry_due', attempt: 0 }, t(0));
    expect(r.ok && commands(r.effects)).toEqual(['reattach']);
    const f = transition(running, { type: 'resume_failed', generation: running.observerGeneration, cause: 'x' }, t(0));
    expect(f).toMatchObject({ ok: true, next: { state: 'AwaitingRecovery' } });
  });
});
