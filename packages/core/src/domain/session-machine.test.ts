import { describe, expect, it } from 'vitest';
import { canAcceptMessage, SESSION_TABLE, tableEdges, transition } from './session-machine.ts';
import { AGENT_FACT_TYPES, INTENT_TYPES, SESSION_EVENT_TYPES, SESSION_STATES, type SessionState } from './session-types.ts';
import { GEN, possibleTargets, sampleEvent, snapshotIn, T0, VERSION } from './testing/fixtures.ts';

const pairs = SESSION_STATES.flatMap((state) => SESSION_EVENT_TYPES.map((event) => ({ state, event })));
const listed = (state: SessionState, event: string) => Object.hasOwn(SESSION_TABLE[state], event);

describe('every (state, event) pair', () => {
  it('covers 10 states × 28 events', () => {
    expect(pairs).toHaveLength(280);
    expect(new Set(SESSION_EVENT_TYPES).size).toBe(SESSION_EVENT_TYPES.length);
  });

  it.each(pairs)('$state + $event', ({ state, event }) => {
    const result = transition(snapshotIn(state), sampleEvent(event), T0);
    if (listed(state, event)) {
      expect(result.ok, JSON.stringify(result)).toBe(true);
      if (!result.ok) return;
      expect(possibleTargets(state, event)).toContain(result.next.state);
      expect(result.effects[0]).toMatchObject({ type: 'record_evidence', event, from: state, to: result.next.state });
    } else {
      expect(result).toEqual({ ok: false, refusal: { code: 'ILLEGAL_TRANSITION', state, event } });
    }
  });
});

describe('staleness', () => {
  const agentPairs = pairs.filter((p) => (AGENT_FACT_TYPES as readonly string[]).includes(p.event) && listed(p.state, p.event));
  it.each(agentPairs)('$state + $event from an older observer generation is refused', ({ state, event }) => {
    const result = transition(snapshotIn(state), sampleEvent(event, GEN - 1), T0);
    expect(result).toMatchObject({ ok: false, refusal: { code: 'STALE_GENERATION' } });
  });

  const intentPairs = pairs.filter((p) => (INTENT_TYPES as readonly string[]).includes(p.event) && listed(p.state, p.event));
  it.each(intentPairs)('$state + $event from an old card is refused, without a card version allowed', ({ state, event }) => {
    const stale = { ...sampleEvent(event), cardVersion: VERSION - 1 };
    expect(transition(snapshotIn(state), stale, T0)).toMatchObject({ ok: false, refusal: { code: 'STALE_BUTTON' } });
    expect(transition(snapshotIn(state), { type: event } as never, T0).ok).toBe(true);
  });

  it('a lifetime timer that is not due (or with no deadline) is refused', () => {
    const future = snapshotIn('Ready', { lifetimeDeadline: new Date(T0.getTime() + 1) });
    expect(transition(future, { type: 'lifetime_expired' }, T0)).toMatchObject({ ok: false, refusal: { code: 'STALE_TIMER' } });
    const never = snapshotIn('Running', { lifetimeDeadline: null });
    expect(transition(never, { type: 'lifetime_expired' }, T0)).toMatchObject({ ok: false, refusal: { code: 'STALE_TIMER' } });
  });

  it('work_drained is refused while any message is leased or accepted', () => {
    const busy = snapshotIn('Running', { queue: { inFlight: true, waiting: false } });
    expect(transition(busy, { type: 'work_drained' }, T0)).toMatchObject({
      ok: false,
      refusal: { code: 'GUARD_REJECTED', guards: ['queueDrained'] },
    });
  });
});

describe('guarded branches', () => {
  const q = (inFlight: boolean, waiting: boolean) => ({ queue: { inFlight, waiting } });
  it('Ready + lifetime_expired: close when idle, finish accepted backlog first otherwise', () => {
    expect(transition(snapshotIn('Ready', q(false, false)), { type: 'lifetime_expired' }, T0)).toMatchObject({ next: { state: 'Closing' } });
    const busy = transition(snapshotIn('Ready', q(true, false)), { type: 'lifetime_expired' }, T0);
    expect(busy).toMatchObject({ ok: true, next: { state: 'Ready', lifetimeExpired: true } });
    expect(transition(snapshotIn('Ready', q(false, true)), { type: 'lifetime_expired' }, T0)).toMatchObject({ next: { state: 'Ready' } });
  });

  it('Ready + work_drained closes only an expired idle session', () => {
    expect(transition(snapshotIn('Ready', { lifetimeExpired: true }), { type: 'work_drained' }, T0)).toMatchObject({ next: { state: 'Closing' } });
    const backlog = transition(snapshotIn('Ready', { lifetimeExpired: true, ...q(false, true) }), { type: 'work_drained' }, T0);
    expect(backlog).toMatchObject({ next: { state: 'Ready' } });
    expect(backlog.ok && backlog.effects).toContainEqual({ type: 'queue', op: 'wake' });
    expect(transition(snapshotIn('Ready'), { type: 'work_drained' }, T0)).toMatchObject({ next: { state: 'Ready' } });
  });

  it('ClosingAfterWork + work_drained closes only when nothing accepted is left', () => {
    expect(transition(snapshotIn('ClosingAfterWork'), { type: 'work_drained' }, T0)).toMatchObject({ next: { state: 'Closing' } });
    expect(transition(snapshotIn('ClosingAfterWork', q(false, true)), { type: 'work_drained' }, T0)).toMatchObject({
      next: { state: 'ClosingAfterWork' },
    });
  });

  it('Closing + archive_committed without a verified exit is refused: Archived needs both facts', () => {
    const r = transition(snapshotIn('Closing', { exitVerified: false }), { type: 'archive_committed' }, T0);
    expect(r).toEqual({ ok: false, refusal: { code: 'GUARD_REJECTED', state: 'Closing', event: 'archive_committed', guards: ['exitVerified'] } });
  });

  it('AwaitingRecovery + reattached returns to exactly the stored previous state', () => {
    for (const prev of ['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork'] as const) {
      const r = transition(snapshotIn('AwaitingRecovery', { resumeState: prev }), sampleEvent('reattached'), T0);
      expect(r).toMatchObject({ ok: true, next: { state: prev, resumeState: null } });
    }
    const none = transition(snapshotIn('AwaitingRecovery', { resumeState: null }), sampleEvent('reattached'), T0);
    expect(none).toMatchObject({ ok: false, refusal: { code: 'GUARD_REJECTED', guards: ['hasResumeState'] } });
  });
});

describe('table shape matches SPEC §2 "Next states"', () => {
  const SPEC_NEXT: Record<SessionState, SessionState[]> = {
    // Closing: a start waiting (e.g. on a folder-trust dialog) can be cancelled (issue 14; docs/hooks-channel.md).
    Starting: ['Ready', 'AwaitingRecovery', 'Closing'],
    Resuming: ['Ready', 'ResumeFailed', 'AwaitingRecovery'],
    Ready: ['Running', 'Closing', 'AwaitingRecovery'],
    Running: ['Ready', 'Stopping', 'ClosingAfterWork', 'AwaitingRecovery'],
    Stopping: ['Ready', 'AwaitingRecovery'],
    ClosingAfterWork: ['Closing', 'AwaitingRecovery'],
    // ResumeFailed: the end of a resume attempt that lost its binding (README decision 17).
    AwaitingRecovery: ['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork', 'ResumeFailed'],
    Closing: ['Archived'],
    Archived: ['Resuming'],
    ResumeFailed: ['Archived'],
  };
  it.each(SESSION_STATES)('%s leads only to its SPEC next states, and to each of them', (state) => {
    const targets = new Set(SESSION_EVENT_TYPES.flatMap((e) => possibleTargets(state, e)).filter((t) => t !== state));
    expect([...targets].sort()).toEqual([...SPEC_NEXT[state]].sort());
  });

  it('AwaitingRecovery is only left by reattached (previous state), or by the end of a resume it recovers; never by archiving or a new session', () => {
    const exits = tableEdges().filter((e) => e.from === 'AwaitingRecovery' && e.to !== 'AwaitingRecovery');
    expect(exits).toEqual([
      { from: 'AwaitingRecovery', event: 'reattached', to: 'previous' },
      { from: 'AwaitingRecovery', event: 'resume_failed', guard: 'wasResuming', to: 'ResumeFailed' },
      { from: 'AwaitingRecovery', event: 'resume_timed_out', guard: 'wasResuming', to: 'ResumeFailed' },
    ]);
  });
});

describe('canAcceptMessage follows SPEC §2 "Accepts new messages"', () => {
  const EXPECTED: Record<SessionState, string> = {
    Starting: 'held_until_ready',
    Resuming: 'held_until_ready',
    Ready: 'gated',
    Running: 'gated',
    Stopping: 'held_until_ready',
    ClosingAfterWork: 'LIFETIME_EXPIRED',
    AwaitingRecovery: 'held_until_ready',
    Closing: 'SESSION_NOT_ACCEPTING',
    Archived: 'SESSION_NOT_ACCEPTING',
    ResumeFailed: 'SESSION_NOT_ACCEPTING',
  };
  it.each(SESSION_STATES)('%s', (state) => {
    const d = canAcceptMessage(snapshotIn(state));
    expect(d.ok ? d.delivery : d.code).toBe(EXPECTED[state]);
    // After expiry nothing new is stored, in any state.
    const expired = canAcceptMessage(snapshotIn(state, { lifetimeExpired: true }));
    expect(expired.ok).toBe(false);
    if (!expired.ok && EXPECTED[state] !== 'SESSION_NOT_ACCEPTING') expect(expired.code).toBe('LIFETIME_EXPIRED');
  });
});
