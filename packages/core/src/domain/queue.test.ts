import { describe, expect, it } from 'vitest';
import {
  applyInterruptOutcome,
  applyTurnOutcome,
  failUndelivered,
  MESSAGE_STATUSES,
  type MessageStatus,
  nextDeliverable,
  type QueueMessage,
  recheckStatus,
  type SessionFacts,
  summarizeQueue,
} from './queue.ts';
import { checkMove, onPredecessorSaveFailed, STATUS_MOVES } from './testing/queue-rules.ts';

const msg = (seq: number, status: MessageStatus, over: Partial<QueueMessage> = {}): QueueMessage => ({
  id: `m${seq}`,
  seq,
  status,
  mainMessageId: null,
  nativeTurnId: status === 'pending' ? null : `t${seq}`,
  claimedBy: null,
  ...over,
});
const facts = (over: Partial<SessionFacts> = {}): SessionFacts => ({
  state: 'Ready',
  outcomeWriteFailed: false,
  finalReceived: false,
  dispatcherId: 'd1',
  ...over,
});

describe('status moves', () => {
  const pairs = MESSAGE_STATUSES.flatMap((from) => MESSAGE_STATUSES.map((to) => ({ from, to })));
  it.each(pairs)('$from → $to follows the table (with exact proof)', ({ from, to }) => {
    const m = msg(1, from, { nativeTurnId: 't1' });
    const allowed = (STATUS_MOVES[from] as readonly MessageStatus[]).includes(to);
    expect(checkMove(m, to, { turnId: 't1', verified: true }).ok).toBe(allowed);
  });

  it('confirmed outcomes are final and are never downgraded to unknown', () => {
    expect(STATUS_MOVES.completed).toEqual([]);
    expect(STATUS_MOVES.terminal_failed).toEqual([]);
    expect(STATUS_MOVES.cancelled).toEqual([]);
    expect(checkMove(msg(1, 'terminal_failed'), 'unknown')).toEqual({ ok: false, reason: 'illegal_move' });
  });

  it.each(['failed', 'unknown'] as const)('%s changes only with an exact turn link and verified evidence', (status) => {
    const m = msg(1, status, { nativeTurnId: 't1' });
    expect(checkMove(m, 'completed')).toEqual({ ok: false, reason: 'needs_exact_evidence' });
    expect(checkMove(m, 'completed', { turnId: 't2', verified: true })).toEqual({ ok: false, reason: 'needs_exact_evidence' });
    expect(checkMove(m, 'completed', { turnId: 't1', verified: false })).toEqual({ ok: false, reason: 'needs_exact_evidence' });
    expect(checkMove(m, 'completed', { turnId: 't1', verified: true })).toEqual({ ok: true });
    // An old receipt without a turn id can never be matched (and never by text: there is no text).
    const old = msg(2, status, { nativeTurnId: null });
    expect(checkMove(old, 'terminal_failed', { turnId: 'anything', verified: true }).ok).toBe(false);
  });
});

describe('nextDeliverable while a permission request or question may be on screen', () => {
  it('hands nothing over, neither a follow-up nor a main request, and says why', () => {
    const q = [
      { id: 'a', seq: 1, status: 'accepted' as const, mainMessageId: null, nativeTurnId: 't', claimedBy: null },
      { id: 'b', seq: 2, status: 'pending' as const, mainMessageId: null, nativeTurnId: null, claimedBy: null },
    ];
    expect(nextDeliverable(q, { state: 'Running', outcomeWriteFailed: false, finalReceived: false, dispatcherId: 'e', promptOpen: true })).toEqual({
      ok: false,
      reason: 'prompt_open',
    });
    expect(nextDeliverable(q, { state: 'Running', outcomeWriteFailed: false, finalReceived: false, dispatcherId: 'e', promptOpen: false })).toMatchObject({
      ok: true,
      mode: 'follow_up',
    });
    const idle = [{ id: 'b', seq: 2, status: 'pending' as const, mainMessageId: null, nativeTurnId: null, claimedBy: null }];
    expect(nextDeliverable(idle, { state: 'Ready', outcomeWriteFailed: false, finalReceived: false, dispatcherId: 'e', promptOpen: true })).toEqual({
      ok: false,
      reason: 'prompt_open',
    });
  });
});

describe('nextDeliverable after the running turn asked the user', () => {
  const q = [
    { id: 'a', seq: 1, status: 'accepted' as const, mainMessageId: null, nativeTurnId: 't', claimedBy: null },
    { id: 'b', seq: 2, status: 'pending' as const, mainMessageId: null, nativeTurnId: null, claimedBy: null },
  ];
  const base = { outcomeWriteFailed: false, finalReceived: false, dispatcherId: 'e', promptOpen: false };
  it('no follow-up joins a turn that asked, even once the request is answered; it waits for the turn to end', () => {
    expect(nextDeliverable(q, { ...base, state: 'Running', turnAsked: true })).toEqual({ ok: false, reason: 'turn_asked' });
    expect(nextDeliverable(q, { ...base, state: 'ClosingAfterWork', turnAsked: true })).toEqual({ ok: false, reason: 'turn_asked' });
    expect(nextDeliverable(q, { ...base, state: 'Running', turnAsked: false })).toMatchObject({ ok: true, mode: 'follow_up', mainMessageId: 'a' });
  });
  it('the turn over, the waiting message goes as the next main request', () => {
    const done = [{ ...q[0]!, status: 'completed' as const }, q[1]!];
    expect(nextDeliverable(done, { ...base, state: 'Ready', turnAsked: false })).toMatchObject({ ok: true, mode: 'main', message: { id: 'b' } });
  });
});

describe('nextDeliverable', () => {
  it('offers only the oldest pending message, as a main request, in Ready', () => {
    const r = nextDeliverable([msg(3, 'pending'), msg(2, 'pending'), msg(1, 'completed')], facts());
    expect(r).toMatchObject({ ok: true, mode: 'main', message: { id: 'm2' } });
  });

  it('never re-sends unknown or failed messages; they do not block the next one', () => {
    expect(nextDeliverable([msg(1, 'unknown'), msg(2, 'failed'), msg(3, 'pending')], facts())).toMatchObject({ message: { id: 'm3' } });
    expect(nextDeliverable([msg(1, 'unknown'), msg(2, 'terminal_failed')], facts())).toEqual({ ok: false, reason: 'nothing_pending' });
  });

  it('Ready alone does not open the queue: an accepted or leased predecessor blocks it', () => {
    expect(nextDeliverable([msg(1, 'accepted'), msg(2, 'pending')], facts())).toEqual({ ok: false, reason: 'predecessor_in_flight' });
    const leasedFollowUp = msg(2, 'leased', { mainMessageId: 'm1' });
    expect(nextDeliverable([msg(1, 'completed'), leasedFollowUp, msg(3, 'pending')], facts())).toEqual({
      ok: false,
      reason: 'predecessor_in_flight',
    });
  });

  it('one failed outcome write blocks the queue', () => {
    expect(nextDeliverable([msg(1, 'completed'), msg(2, 'pending')], facts({ outcomeWriteFailed: true }))).toEqual({
      ok: false,
      reason: 'outcome_write_failed',
    });
  });

  it.each(['Starting', 'Resuming', 'AwaitingRecovery', 'Stopping', 'Closing', 'Archived', 'ResumeFailed', 'Running'] as const)(
    'holds messages while %s with nothing in flight',
    (state) => {
      expect(nextDeliverable([msg(1, 'pending')], facts({ state }))).toEqual({ ok: false, reason: 'session_not_ready' });
    },
  );

  it('hands follow-ups into a running turn, one acceptance at a time, never after its final', () => {
    const running = facts({ state: 'Running' });
    expect(nextDeliverable([msg(1, 'accepted'), msg(2, 'pending')], running)).toMatchObject({
      ok: true,
      mode: 'follow_up',
      mainMessageId: 'm1',
      message: { id: 'm2' },
    });
    const leased = msg(2, 'leased', { mainMessageId: 'm1' });
    expect(nextDeliverable([msg(1, 'accepted'), leased, msg(3, 'pending')], running)).toEqual({ ok: false, reason: 'acceptance_pending' });
    expect(nextDeliverable([msg(1, 'leased'), msg(2, 'pending')], running)).toEqual({ ok: false, reason: 'acceptance_pending' });
    expect(nextDeliverable([msg(1, 'accepted'), msg(2, 'pending')], { ...running, finalReceived: true })).toEqual({
      ok: false,
      reason: 'final_pending',
    });
    expect(nextDeliverable([msg(1, 'accepted'), msg(2, 'pending')], facts({ state: 'Stopping' }))).toEqual({
      ok: false,
      reason: 'predecessor_in_flight',
    });
  });

  it('the pre-expiry backlog still runs in ClosingAfterWork', () => {
    expect(nextDeliverable([msg(1, 'completed'), msg(2, 'pending')], facts({ state: 'ClosingAfterWork' }))).toMatchObject({ ok: true, mode: 'main' });
  });

  it('a claim held by another dispatcher blocks; our own claim does not', () => {
    expect(nextDeliverable([msg(1, 'pending', { claimedBy: 'd2' })], facts())).toEqual({ ok: false, reason: 'claimed_elsewhere' });
    expect(nextDeliverable([msg(1, 'pending', { claimedBy: 'd1' })], facts()).ok).toBe(true);
  });

  it('keeps order: a pending message older than an in-flight one is not slipped in as a follow-up', () => {
    expect(nextDeliverable([msg(2, 'accepted'), msg(1, 'pending')], facts({ state: 'Running' }))).toEqual({ ok: false, reason: 'order' });
  });
});

describe('outcomes', () => {
  const main = msg(1, 'accepted');
  const f1 = msg(2, 'accepted', { mainMessageId: 'm1' });
  const f2 = msg(3, 'leased', { mainMessageId: 'm1', nativeTurnId: null });
  const later = msg(4, 'pending');

  it('an interrupt ends the turn it names and the follow-ups steered into that exact turn, nothing else', () => {
    const steered = msg(2, 'accepted', { mainMessageId: 'm1', nativeTurnId: 't1' });
    expect(applyInterruptOutcome([later, f2, { ...main, nativeTurnId: 't1' }, steered, msg(0, 'completed')], { messageId: 'm1', nativeTurnId: 't1' })).toEqual([
      { id: 'm1', from: 'accepted', to: 'terminal_failed' },
      { id: 'm2', from: 'accepted', to: 'terminal_failed' },
    ]);
  });

  it("a follow-up queued as a turn of its own, or still without a receipt, is not ended by the main's interrupt", () => {
    const own = msg(2, 'accepted', { mainMessageId: 'm1', nativeTurnId: 'rec-2' });
    expect(applyInterruptOutcome([{ ...main, nativeTurnId: 'rec-1' }, own, f2, later], { messageId: 'm1', nativeTurnId: 'rec-1' })).toEqual([
      { id: 'm1', from: 'accepted', to: 'terminal_failed' },
    ]);
  });

  it('a finished turn does not end a follow-up bound to another native turn (its own end comes on its own)', () => {
    const own = msg(2, 'accepted', { mainMessageId: 'm1', nativeTurnId: 'rec-2' });
    const steered = msg(3, 'accepted', { mainMessageId: 'm1', nativeTurnId: 'rec-1' });
    expect(applyTurnOutcome([{ ...main, nativeTurnId: 'rec-1' }, own, steered, later], 'm1', 'completed', 'rec-1')).toEqual([
      { id: 'm1', from: 'accepted', to: 'completed' },
      { id: 'm3', from: 'accepted', to: 'completed' },
    ]);
  });

  it('a finished turn completes the main request and accepted follow-ups, not an unconfirmed one', () => {
    expect(applyTurnOutcome([main, f1, f2, later], 'm1', 'completed')).toEqual([
      { id: 'm1', from: 'accepted', to: 'completed' },
      { id: 'm2', from: 'accepted', to: 'completed' },
    ]);
  });

  it('a predecessor save failure releases waiting claims and never puts anything back', () => {
    const waiting = msg(5, 'pending', { claimedBy: 'd1' });
    const reaccepted = msg(6, 'pending', { reaccepted: true, claimedBy: 'd1' });
    const inexact = msg(7, 'accepted', { inexactMatch: true });
    const r = onPredecessorSaveFailed([main, f1, f2, waiting, reaccepted, inexact, msg(8, 'pending')], 'm1');
    expect(r).toEqual({ releaseClaims: ['m5'], untouched: ['m2', 'm3', 'm6', 'm7'], blockQueue: true });
  });

  it('undelivered messages of a closing session are failed, nothing else', () => {
    expect(failUndelivered([main, later, msg(5, 'unknown')])).toEqual([{ id: 'm4', from: 'pending', to: 'failed' }]);
  });

  it('summarizes in-flight and waiting work', () => {
    expect(summarizeQueue([main, later])).toEqual({ inFlight: true, waiting: true });
    expect(summarizeQueue([msg(1, 'unknown'), msg(2, 'failed'), msg(3, 'completed')])).toEqual({ inFlight: false, waiting: false });
  });
});

describe('recheckStatus', () => {
  const cases: [QueueMessage, Parameters<typeof recheckStatus>[1], boolean, MessageStatus | null][] = [
    [msg(1, 'accepted'), { kind: 'final_complete', turnId: 't1' }, false, 'completed'],
    [msg(1, 'accepted'), { kind: 'aborted', turnId: 't1' }, true, 'terminal_failed'],
    [msg(1, 'accepted'), { kind: 'final_complete', turnId: 't9' }, true, null],
    [msg(1, 'accepted'), { kind: 'final_complete', turnId: 't9' }, false, 'unknown'],
    [msg(1, 'accepted'), { kind: 'no_evidence' }, true, null],
    [msg(1, 'accepted'), { kind: 'still_running' }, true, null],
    [msg(1, 'accepted'), { kind: 'no_evidence' }, false, 'unknown'],
    [msg(1, 'leased', { nativeTurnId: null }), { kind: 'no_evidence' }, false, 'unknown'],
    [msg(1, 'terminal_failed'), { kind: 'no_evidence' }, false, null],
    [msg(1, 'completed'), { kind: 'aborted', turnId: 't1' }, false, null],
    [msg(1, 'unknown'), { kind: 'no_evidence' }, false, null],
    [msg(1, 'unknown'), { kind: 'final_complete', turnId: 't1' }, false, 'completed'],
    [msg(1, 'unknown', { nativeTurnId: null }), { kind: 'final_complete', turnId: 't1' }, false, null],
    [msg(1, 'failed'), { kind: 'aborted', turnId: 't1' }, true, 'terminal_failed'],
    [msg(1, 'pending'), { kind: 'no_evidence' }, false, null],
  ];
  it.each(cases)('%o with %o (process alive: %s) → %s', (m, finding, alive, expected) => {
    expect(recheckStatus(m, finding, alive)).toBe(expected);
    if (expected !== null) {
      const proof = 'turnId' in finding ? { turnId: finding.turnId, verified: true } : undefined;
      expect(checkMove(m, expected, proof).ok).toBe(true);
    }
  });
});
