import { describe, expect, it } from 'vitest';
import { applyTurnOutcome, conversationNeverBegan, deliverCommand, type MessageStatus, nextDeliverable, type QueueMessage, summarizeQueue } from './queue.ts';
import { canAcceptMessage, newSession, type SessionState, transition } from './session-machine.ts';
import { commands, fact, notices, queueOps, run } from './testing/run.ts';
import { snapshotIn } from './testing/fixtures.ts';

const H = 3_600_000;
const t = (ms: number) => new Date(Date.UTC(2026, 8, 2, 9) + ms);
const idle = { inFlight: false, waiting: false };
const busy = { inFlight: true, waiting: false };
const backlog = { inFlight: false, waiting: true };

describe('SPEC §4 scenarios as event sequences', () => {
  it('Create: one start command, node/executor fixed, lifetime from creation', () => {
    const { snapshot, effects } = newSession({ now: t(0), lifetime: '12h', hasNativeId: true });
    expect(snapshot.state).toBe('Starting');
    expect(commands(effects)).toEqual(['start']);
    expect(effects).toContainEqual({ type: 'schedule', timer: 'lifetime', at: t(12 * H) });
    const ready = run(snapshot, [{ event: fact('cli_ready'), at: t(500) }]);
    expect(ready.snapshot.state).toBe('Ready');
    // A slow start never causes a second session: no second start in any later step.
    expect(ready.effects.flat().filter((e) => e.type === 'send_command')).toEqual([]);
  });

  it('Message while starting: stored for this session, held until ready, then delivered once, in order', () => {
    const { snapshot } = newSession({ now: t(0), hasNativeId: false });
    expect(canAcceptMessage(snapshot)).toEqual({ ok: true, delivery: 'held_until_ready' });
    const messages: QueueMessage[] = [1, 2].map((seq) => ({
      id: `m${seq}`,
      seq,
      status: 'pending',
      mainMessageId: null,
      nativeTurnId: null,
      claimedBy: null,
    }));
    const facts = (state: SessionState) => ({ state, outcomeWriteFailed: false, finalReceived: false, dispatcherId: 'd1' });
    expect(nextDeliverable(messages, facts('Starting'))).toEqual({ ok: false, reason: 'session_not_ready' });

    const ready = run(snapshot, [{ event: fact('cli_ready'), at: t(1000), queue: summarizeQueue(messages) }]);
    expect(queueOps(ready.effects[0] ?? [])).toContain('wake');
    const first = nextDeliverable(messages, facts(ready.snapshot.state));
    if (!first.ok) throw new Error(first.reason);
    expect(deliverCommand(first, ready.snapshot.observerGeneration)).toEqual({
      type: 'send_command',
      kind: 'deliver',
      generation: ready.snapshot.observerGeneration,
      messageId: 'm1',
    });
    Object.assign(first.message, { status: 'leased' });
    expect(nextDeliverable(messages, facts('Ready'))).toEqual({ ok: false, reason: 'predecessor_in_flight' });

    const running = run(ready.snapshot, [{ event: fact('turn_started'), at: t(1200), queue: summarizeQueue(messages) }]);
    Object.assign(first.message, { status: 'accepted', nativeTurnId: 'turn-1' });
    const second = nextDeliverable(messages, facts(running.snapshot.state));
    expect(second).toMatchObject({ ok: true, mode: 'follow_up', mainMessageId: 'm1', message: { id: 'm2' } });
    Object.assign(messages[1] ?? {}, { status: 'accepted', mainMessageId: 'm1', nativeTurnId: 'turn-1' });

    for (const u of applyTurnOutcome(messages, 'm1', 'completed')) Object.assign(messages.find((m) => m.id === u.id) ?? {}, { status: u.to });
    expect(messages.map((m) => m.status)).toEqual(['completed', 'completed']);
    const done = run(running.snapshot, [{ event: { type: 'work_drained' }, at: t(9000), queue: summarizeQueue(messages) }]);
    expect(notices(done.effects[0] ?? [])).toContain('work_finished');
    expect(done.snapshot.state).toBe('Ready');
  });

  it('Stop: interrupts only the current work; the session stays open and the queue wakes', () => {
    const r = run(snapshotIn('Running', { lifetimeDeadline: t(12 * H), queue: busy }), [
      { event: { type: 'stop_requested' }, at: t(0) },
      { event: fact('interrupt_confirmed'), at: t(300), queue: backlog },
      { event: { type: 'work_drained' }, at: t(400), queue: backlog },
    ]);
    expect(commands(r.effects[0] ?? [])).toEqual(['interrupt']);
    expect(canAcceptMessage({ ...snapshotIn('Stopping'), lifetimeExpired: false })).toEqual({ ok: true, delivery: 'held_until_ready' });
    // The interrupt's messages got their outcome from its evidence; nothing is concluded for the rest.
    expect(queueOps(r.effects[1] ?? [])).toEqual(['wake']);
    expect(queueOps(r.effects[2] ?? [])).toEqual(['wake']);
    expect(r.snapshot.state).toBe('Ready');
    expect(r.effects.flat().map((e) => e.type === 'send_command' && e.kind)).not.toContain('close');
  });

  it('Stop: a follow-up the CLI went on to run after the interrupt is drained within the stop', () => {
    const r = run(snapshotIn('Running', { lifetimeDeadline: t(12 * H), queue: busy }), [
      { event: { type: 'stop_requested' }, at: t(0) },
      { event: fact('interrupt_confirmed'), at: t(300), queue: busy },
    ]);
    // Still Stopping, the drain timer still armed: the follow-up's own evidence ends it.
    expect(r.snapshot.state).toBe('Stopping');
    expect((r.effects[1] ?? []).filter((e) => e.type !== 'record_evidence')).toEqual([]);
    const done = run(r.snapshot, [{ event: { type: 'work_drained' }, at: t(4000), queue: idle }]);
    expect(done.snapshot.state).toBe('Ready');
    expect(done.effects[0]).toContainEqual({ type: 'cancel', timer: 'stop_drain' });
  });

  it('Close: Archived only after verified exit AND committed archive; observer EOF proves nothing', () => {
    const closing = run(snapshotIn('Ready', { lifetimeDeadline: t(H) }), [
      { event: { type: 'close_requested' }, at: t(0) },
      { event: fact('observer_lost'), at: t(10) },
    ]);
    expect(closing.snapshot.state).toBe('Closing');
    expect(commands(closing.effects[0] ?? [])).toEqual(['close']);
    expect(transition(closing.snapshot, { type: 'archive_committed' }, t(20)).ok).toBe(false);
    const done = run(closing.snapshot, [
      { event: fact('process_exited_verified'), at: t(200) },
      { event: { type: 'archive_committed' }, at: t(300) },
    ]);
    expect(done.effects[0]).toContainEqual({ type: 'commit_archive', attempt: 1 });
    expect(done.snapshot).toMatchObject({ state: 'Archived', lifetimeDeadline: null });
    expect(notices(done.effects[1] ?? [])).toEqual(['closed']);
  });

  it('Resume: exact resume command, lifetime restarts at success (not at request)', () => {
    const r = run(snapshotIn('Archived', { lifetimeDeadline: null }), [
      { event: { type: 'resume_requested' }, at: t(0) },
      { event: fact('resume_confirmed', { lifetime: '6h' }), at: t(5000) },
    ]);
    expect(commands(r.effects[0] ?? [])).toEqual(['resume']);
    expect(r.snapshot).toMatchObject({ state: 'Ready', lifetimeDeadline: t(5000 + 6 * H), lifetimeExpired: false });
  });

  it('Resume failure: archive record unchanged, exactly one notice, no card, no transfer', () => {
    const archived = snapshotIn('Archived', { lifetimeDeadline: null });
    const r = run(archived, [
      { event: { type: 'resume_requested' }, at: t(0) },
      { event: fact('resume_failed', { cause: 'unknown session id' }), at: t(900) },
      { event: { type: 'resume_failure_reported' }, at: t(901) },
    ]);
    const all = r.effects.flat();
    expect(all.filter((e) => e.type === 'notify')).toEqual([{ type: 'notify', kind: 'resume_failed', detail: 'unknown session id' }]);
    expect(all.flatMap((e) => (e.type === 'send_command' ? [e.kind] : []))).toEqual(['resume']);
    const { version: _v, observerGeneration: _g, ...rest } = r.snapshot;
    const { version: _v0, observerGeneration: _g0, ...before } = archived;
    expect(rest).toEqual(before);
  });

  it('Process crash: same session restored exactly on the same node, queue held, then re-checked', () => {
    const running = snapshotIn('Running', { lifetimeDeadline: t(H), queue: busy });
    const r = run(running, [{ event: fact('process_exited_verified'), at: t(0) }]);
    expect(r.snapshot).toMatchObject({ state: 'AwaitingRecovery', resumeState: 'Running' });
    expect(commands(r.effects[0] ?? [])).toEqual(['resume']);
    expect(canAcceptMessage(r.snapshot)).toEqual({ ok: true, delivery: 'held_until_ready' });
    const back = run(r.snapshot, [{ event: fact('reattached', { mode: 'exact_resume' }), at: t(2000) }]);
    expect(back.snapshot.state).toBe('Running');
    expect(queueOps(back.effects[0] ?? [])).toEqual(['recheck_outcomes']);
    expect([...r.effects, ...back.effects].flat().some((e) => e.type === 'send_command' && e.kind === 'start')).toBe(false);
  });

  it('Node unreachable: stays AwaitingRecovery through any number of retries, then continues', () => {
    let s = run(snapshotIn('Running', { lifetimeDeadline: t(99 * H), queue: busy }), [{ event: { type: 'node_lost' }, at: t(0) }]).snapshot;
    let clock = 0;
    for (let attempt = 0; attempt < 40; attempt++) {
      const r = transition(s, { type: 'recovery_retry_due', attempt }, t(clock), { jitter: 0.99 });
      if (!r.ok) throw new Error(r.refusal.code);
      const next = r.effects.find((e) => e.type === 'schedule');
      if (next?.type !== 'schedule') throw new Error('no retry scheduled');
      expect(next.at.getTime() - clock - Date.UTC(2026, 8, 2, 9)).toBeLessThanOrEqual(72_000);
      clock = next.at.getTime() - Date.UTC(2026, 8, 2, 9);
      s = { ...r.next, queue: busy };
      expect(s.state).toBe('AwaitingRecovery');
    }
    const stale = transition(s, { type: 'reattached', generation: s.observerGeneration - 1, mode: 'observer' }, t(clock));
    expect(stale).toMatchObject({ ok: false, refusal: { code: 'STALE_GENERATION' } });
    const back = run(s, [
      { event: { type: 'node_returned' }, at: t(clock) },
      { event: fact('reattached', { mode: 'observer' }), at: t(clock + 1) },
    ]);
    expect(back.snapshot.state).toBe('Running');
  });

  it('Lifetime expiry idle: closed automatically and archived', () => {
    const r = run(snapshotIn('Ready', { lifetimeDeadline: t(0) }), [
      { event: { type: 'lifetime_expired' }, at: t(0) },
      { event: fact('process_exited_verified'), at: t(100) },
      { event: { type: 'archive_committed' }, at: t(200) },
    ]);
    expect(r.snapshot.state).toBe('Archived');
    expect(r.effects.flat().filter((e) => e.type === 'notify' && e.kind === 'closed')).toHaveLength(1);
  });

  it('Lifetime expiry while working: no interrupt, new input refused, work finishes, then close', () => {
    const r = run(snapshotIn('Running', { lifetimeDeadline: t(0), queue: busy }), [{ event: { type: 'lifetime_expired' }, at: t(0) }]);
    expect(r.snapshot.state).toBe('ClosingAfterWork');
    expect(commands(r.effects[0] ?? [])).toEqual([]);
    expect(canAcceptMessage(r.snapshot)).toEqual({ ok: false, code: 'LIFETIME_EXPIRED', state: 'ClosingAfterWork' });
    const end = run(r.snapshot, [
      { event: { type: 'final_save_failed', attempt: 1 }, at: t(10) },
      { event: { type: 'final_save_retry_due', attempt: 1 }, at: t(1010) },
      { event: { type: 'final_save_recovered' }, at: t(1020) },
      { event: { type: 'work_drained' }, at: t(1030), queue: idle },
    ]);
    expect(end.effects.slice(0, 3).every((fx) => fx[0]?.type === 'record_evidence' && fx[0].to === 'ClosingAfterWork')).toBe(true);
    expect(end.snapshot.state).toBe('Closing');
    expect(commands(end.effects[3] ?? [])).toEqual(['close']);
  });

  it('Jump to finished background: finishing work announces it and restarts nothing', () => {
    const r = run(snapshotIn('Running', { queue: busy }), [{ event: { type: 'work_drained' }, at: t(0), queue: idle }]);
    expect(notices(r.effects[0] ?? [])).toContain('work_finished');
    expect(commands(r.effects[0] ?? [])).toEqual([]);
  });
});

describe('edge sequences the SPEC implies', () => {
  it('expiry while starting: refused input at once, close decision once ready', () => {
    const { snapshot } = newSession({ now: t(0), lifetime: '6h', hasNativeId: true });
    const r = run(snapshot, [
      { event: { type: 'lifetime_expired' }, at: t(6 * H) },
      { event: fact('cli_ready'), at: t(6 * H + 1) },
    ]);
    expect(canAcceptMessage(r.snapshot)).toMatchObject({ ok: false, code: 'LIFETIME_EXPIRED' });
    expect(r.effects[1]).toContainEqual({ type: 'schedule', timer: 'lifetime', at: t(6 * H + 1) });
    const closed = run(r.snapshot, [{ event: { type: 'lifetime_expired' }, at: t(6 * H + 2) }]);
    expect(closed.snapshot.state).toBe('Closing');
  });

  it('AwaitingRecovery accepts into the queue, but not after expiry', () => {
    const s = snapshotIn('AwaitingRecovery', { lifetimeDeadline: t(0) });
    expect(canAcceptMessage(s).ok).toBe(true);
    const r = run(s, [{ event: { type: 'lifetime_expired' }, at: t(0) }]);
    expect(canAcceptMessage(r.snapshot)).toMatchObject({ ok: false, code: 'LIFETIME_EXPIRED' });
  });

  it('final save: one failing notice, 1-2-4-8-16-30-30 s retries, one recovery notice', () => {
    let s = snapshotIn('Running', { queue: busy });
    const delays: number[] = [];
    const said: string[] = [];
    for (let attempt = 1; attempt <= 8; attempt++) {
      const r = transition(s, { type: 'final_save_failed', attempt }, t(0));
      if (!r.ok) throw new Error(r.refusal.code);
      s = r.next;
      said.push(...notices(r.effects));
      for (const e of r.effects) if (e.type === 'schedule') delays.push(e.at.getTime() - t(0).getTime());
    }
    expect(delays).toEqual([1, 2, 4, 8, 16, 30, 30, 30].map((x) => x * 1000));
    expect(said).toEqual(['final_save_failing']);
    expect(s.state).toBe('Running');
    const ok = transition(s, { type: 'final_save_recovered' }, t(1));
    expect(ok.ok && notices(ok.effects)).toEqual(['final_save_recovered']);
  });

  it('a binding change stops the old final-save retry', () => {
    const r = transition(snapshotIn('Running', { queue: busy }), sampleLost(), t(0));
    expect(r.ok && r.effects).toContainEqual({ type: 'cancel', timer: 'final_save_retry' });
  });

  it('unconfirmed stop keeps the session Stopping and says so once', () => {
    const r = run(snapshotIn('Running', { queue: busy }), [
      { event: { type: 'stop_requested' }, at: t(0) },
      { event: { type: 'stop_drain_expired' }, at: t(15_000) },
    ]);
    expect(r.snapshot.state).toBe('Stopping');
    expect(notices(r.effects[1] ?? [])).toEqual(['stop_unconfirmed']);
  });

  it('a new Codex session that crashed before telling its id is started again, never resumed blindly', () => {
    const r = run(snapshotIn('Starting', { hasNativeId: false }), [{ event: fact('process_exited_verified'), at: t(0) }]);
    expect(commands(r.effects[0] ?? [])).toEqual(['start']);
  });

  it('a new Claude session (id chosen up front) whose CLI died before Ready is started again under that id, not resumed', () => {
    const r = run(snapshotIn('Starting', { hasNativeId: true }), [{ event: fact('process_exited_verified'), at: t(0) }]);
    expect(r.snapshot.state).toBe('AwaitingRecovery');
    expect(r.snapshot.resumeState).toBe('Starting');
    expect(commands(r.effects[0] ?? [])).toEqual(['start']);
  });

  it('a start that fails again is retried on the recovery schedule only, never in a tight loop', () => {
    const waiting = snapshotIn('AwaitingRecovery', { hasNativeId: true, resumeState: 'Starting' });
    const again = run(waiting, [{ event: fact('process_exited_verified'), at: t(0) }]);
    expect(again.snapshot.state).toBe('AwaitingRecovery');
    expect(commands(again.effects[0] ?? [])).toEqual([]);
    const due = run(waiting, [{ event: { type: 'recovery_retry_due', attempt: 0 }, at: t(1000) }]);
    expect(commands(due.effects[0] ?? [])).toEqual(['start']);
    // A session that was Ready before is re-attached, never started afresh.
    const wasRunning = run(snapshotIn('AwaitingRecovery', { resumeState: 'Running' }), [{ event: { type: 'recovery_retry_due', attempt: 0 }, at: t(1000) }]);
    expect(commands(wasRunning.effects[0] ?? [])).toEqual(['reattach']);
    const crashed = run(snapshotIn('AwaitingRecovery', { resumeState: 'Ready' }), [{ event: fact('process_exited_verified'), at: t(0) }]);
    expect(commands(crashed.effects[0] ?? [])).toEqual(['resume']);
  });
});

describe('a CLI that reached Ready but never took a message (decision 7)', () => {
  const bria = { launchSource: 'bria', archivedAt: null, userTurns: 0 };
  const msgs = (...st: MessageStatus[]) => st.map((status) => ({ status }));

  it('no conversation only when Bria made it, it was never archived, no receipt was bound and every message is pending', () => {
    expect(conversationNeverBegan(bria, [])).toBe(true);
    expect(conversationNeverBegan(bria, msgs('pending', 'pending'))).toBe(true);
    for (const st of ['leased', 'accepted', 'completed', 'terminal_failed', 'failed', 'unknown'] as const) {
      expect(conversationNeverBegan(bria, msgs('pending', st))).toBe(false);
    }
    expect(conversationNeverBegan({ ...bria, userTurns: 1 }, [])).toBe(false);
    expect(conversationNeverBegan({ ...bria, launchSource: 'discovered' }, [])).toBe(false);
    expect(conversationNeverBegan({ ...bria, archivedAt: t(0) }, [])).toBe(false);
    // The agent refused a start again because something may have reached the CLI.
    expect(conversationNeverBegan({ ...bria, conversationMayExist: true }, msgs('pending'))).toBe(false);
    expect(conversationNeverBegan({ ...bria, conversationMayExist: false }, msgs('pending'))).toBe(true);
  });

  it('its dead CLI is started again (the id it showed was never written anywhere), retried on the schedule, never in a tight loop', () => {
    const r = run(snapshotIn('Ready', { noConversation: true }), [{ event: fact('process_exited_verified'), at: t(0) }]);
    expect(r.snapshot.state).toBe('AwaitingRecovery');
    expect(r.snapshot.resumeState).toBe('Ready');
    expect(commands(r.effects[0] ?? [])).toEqual(['start']);
    const waiting = snapshotIn('AwaitingRecovery', { resumeState: 'Ready', noConversation: true });
    expect(commands(run(waiting, [{ event: fact('process_exited_verified'), at: t(0) }]).effects[0] ?? [])).toEqual([]);
    expect(commands(run(waiting, [{ event: { type: 'recovery_retry_due', attempt: 0 }, at: t(1000) }]).effects[0] ?? [])).toEqual(['start']);
    // The new CLI's ready returns the session to Ready.
    expect(run(waiting, [{ event: fact('reattached', { mode: 'exact_resume' }), at: t(2000) }]).snapshot.state).toBe('Ready');
  });

  it('anything that may have reached the CLI (or an unknown answer) keeps the exact resume', () => {
    const crashed = run(snapshotIn('Ready', { noConversation: false }), [{ event: fact('process_exited_verified'), at: t(0) }]);
    expect(commands(crashed.effects[0] ?? [])).toEqual(['resume']);
    const unknown = run(snapshotIn('Ready'), [{ event: fact('process_exited_verified'), at: t(0) }]);
    expect(commands(unknown.effects[0] ?? [])).toEqual(['resume']);
    const due = run(snapshotIn('AwaitingRecovery', { resumeState: 'Ready', noConversation: false }), [
      { event: { type: 'recovery_retry_due', attempt: 0 }, at: t(1000) },
    ]);
    expect(commands(due.effects[0] ?? [])).toEqual(['reattach']);
  });
});

describe('a receipt reported after the binding was lost', () => {
  it('turn_started while AwaitingRecovery from Ready stays there and makes the way back Running', () => {
    const r = run(snapshotIn('AwaitingRecovery', { resumeState: 'Ready' }), [{ event: fact('turn_started'), at: t(0) }]);
    expect(r.snapshot.state).toBe('AwaitingRecovery');
    expect(r.snapshot.resumeState).toBe('Running');
    expect(run(r.snapshot, [{ event: fact('reattached', { mode: 'observer' }), at: t(1000) }]).snapshot.state).toBe('Running');
  });
});

describe('stop after expiry', () => {
  it('Stop in ClosingAfterWork interrupts without leaving it, then the session closes', () => {
    const r = run(snapshotIn('ClosingAfterWork', { lifetimeExpired: true, queue: busy }), [
      { event: { type: 'stop_requested' }, at: t(0) },
      { event: fact('interrupt_confirmed'), at: t(300), queue: idle },
      { event: { type: 'work_drained' }, at: t(400), queue: idle },
    ]);
    expect(commands(r.effects[0] ?? [])).toEqual(['interrupt']);
    expect(r.effects[1]).toContainEqual({ type: 'cancel', timer: 'stop_drain' });
    expect(queueOps(r.effects[1] ?? [])).toEqual([]);
    expect(r.snapshot.state).toBe('Closing');
  });
});

function sampleLost() {
  return { type: 'observer_lost', generation: 3 } as const;
}
