import { describe, expect, it } from 'vitest';
import { type DeliveryHold, holdActive, pumpDecision, type PumpRow, queueWait, workDrained } from './pump-rules.ts';
import type { MessageStatus, QueueMessage } from './queue.ts';
import { SESSION_STATES, type SessionState } from './session-types.ts';

const T = new Date('2026-09-02T09:00:00.000Z');
const msg = (id: string, seq: number, status: MessageStatus, o: Partial<QueueMessage & { finalText: boolean }> = {}) => ({
  id,
  seq,
  status,
  mainMessageId: null,
  nativeTurnId: null,
  claimedBy: null,
  finalText: false,
  ...o,
});
const row = (state: SessionState, o: Partial<PumpRow> = {}): PumpRow => ({
  state,
  pendingFinalEventId: null,
  lifetimeExpired: false,
  version: 5,
  openPrompts: 0,
  ...o,
});

describe('drain rule, every state × queue', () => {
  const shapes = [
    { name: 'empty', q: { inFlight: false, waiting: false } },
    { name: 'waiting only', q: { inFlight: false, waiting: true } },
    { name: 'in flight', q: { inFlight: true, waiting: false } },
    { name: 'in flight and waiting', q: { inFlight: true, waiting: true } },
  ];
  const expected = (state: SessionState, expired: boolean, q: { inFlight: boolean; waiting: boolean }): boolean => {
    if (state === 'Running' || state === 'Stopping') return !q.inFlight;
    if (state === 'ClosingAfterWork') return !q.inFlight && !q.waiting;
    if (state === 'Ready') return expired && !q.inFlight && !q.waiting;
    return false;
  };
  const cases = SESSION_STATES.flatMap((state) => shapes.flatMap((s) => [false, true].map((expired) => ({ state, expired, ...s }))));
  it.each(cases)('$state, $name, lifetime expired $expired', ({ state, expired, q }) => {
    expect(workDrained(state, expired, q)).toBe(expected(state, expired, q));
  });
});

describe('pump decision', () => {
  const hold = (o: Partial<DeliveryHold> = {}): DeliveryHold => ({ messageId: 'a', version: 5, until: new Date(T.getTime() + 1000), ...o });
  const table: { name: string; row: PumpRow; queue: ReturnType<typeof msg>[]; hold?: DeliveryHold; kind: 'deliver' | 'drain' | 'none'; id?: string }[] = [
    { name: 'Ready hands the head over', row: row('Ready'), queue: [msg('a', 1, 'pending'), msg('b', 2, 'pending')], kind: 'deliver', id: 'a' },
    { name: 'a held head waits while the version and time hold', row: row('Ready'), queue: [msg('a', 1, 'pending')], hold: hold(), kind: 'none' },
    {
      name: 'a hold ends with any transition (version moved)',
      row: row('Ready', { version: 6 }),
      queue: [msg('a', 1, 'pending')],
      hold: hold(),
      kind: 'deliver',
      id: 'a',
    },
    { name: 'a hold ends at its time', row: row('Ready'), queue: [msg('a', 1, 'pending')], hold: hold({ until: T }), kind: 'deliver', id: 'a' },
    {
      name: 'a hold of another message does not stop the head',
      row: row('Ready'),
      queue: [msg('a', 1, 'pending')],
      hold: hold({ messageId: 'z' }),
      kind: 'deliver',
      id: 'a',
    },
    {
      name: 'a held head still counts as waiting for ClosingAfterWork',
      row: row('ClosingAfterWork'),
      queue: [msg('a', 1, 'pending')],
      hold: hold(),
      kind: 'none',
    },
    { name: 'a final that cannot be saved blocks the queue', row: row('Ready', { pendingFinalEventId: 9n }), queue: [msg('a', 1, 'pending')], kind: 'none' },
    { name: 'Running with nothing in flight drains', row: row('Running'), queue: [msg('a', 1, 'completed')], kind: 'drain' },
    { name: 'Running with a message in flight and none waiting: nothing', row: row('Running'), queue: [msg('a', 1, 'accepted')], kind: 'none' },
    { name: 'Stopping with nothing in flight drains though messages wait', row: row('Stopping'), queue: [msg('a', 1, 'pending')], kind: 'drain' },
    { name: 'Ready, lifetime expired and idle: drains', row: row('Ready', { lifetimeExpired: true }), queue: [], kind: 'drain' },
    { name: 'Ready, idle, lifetime running: nothing', row: row('Ready'), queue: [], kind: 'none' },
  ];
  it.each(table)('$name', ({ row: r, queue, hold: h, kind, id }) => {
    const d = pumpDecision(r, queue, h ?? null, T, 'engine');
    expect(d.kind).toBe(kind);
    if (d.kind === 'deliver') expect(d.d.message.id).toBe(id);
  });

  it('a hold applies only at its version and before its time', () => {
    expect(holdActive(null, 5, T)).toBe(false);
    expect(holdActive(hold(), 5, T)).toBe(true);
    expect(holdActive(hold(), 4, T)).toBe(false);
    expect(holdActive(hold({ until: T }), 5, T)).toBe(false);
  });
});

describe('pumpDecision while a permission request or question may be on screen', () => {
  it('hands nothing over in Ready or Running; the drain rules still apply', () => {
    const ready = pumpDecision(row('Ready', { openPrompts: 1 }), [msg('a', 1, 'pending')], null, T, 'engine');
    expect(ready.kind).toBe('none');
    const running = pumpDecision(
      row('Running', { openPrompts: 2 }),
      [msg('m', 1, 'accepted', { nativeTurnId: 't' }), msg('b', 2, 'pending')],
      null,
      T,
      'engine',
    );
    expect(running.kind).toBe('none');
    expect(pumpDecision(row('Ready', { openPrompts: 0 }), [msg('a', 1, 'pending')], null, T, 'engine').kind).toBe('deliver');
  });
});

describe('pumpDecision after the running turn asked the user', () => {
  it('holds a follow-up until the turn ends, then hands it over as a main request', () => {
    const q = [msg('m', 1, 'accepted', { nativeTurnId: 't' }), msg('b', 2, 'pending')];
    expect(pumpDecision(row('Running', { turnAsked: true }), q, null, T, 'engine').kind).toBe('none');
    expect(pumpDecision(row('Running', { turnAsked: false }), q, null, T, 'engine').kind).toBe('deliver');
    const after = pumpDecision(row('Ready', { turnAsked: false }), [msg('b', 2, 'pending')], null, T, 'engine');
    expect(after).toMatchObject({ kind: 'deliver', d: { mode: 'main' } });
  });
});

describe('queueWait: what the oldest queued message waits for (the session page says it, issue 31)', () => {
  const E = 'engine';
  it('none pending: nothing waits', () => {
    expect(queueWait(row('Ready'), [msg('a', 1, 'completed')], E)).toBeNull();
    expect(queueWait(row('Ready'), [], E)).toBeNull();
  });
  it('an open permission request holds the head, whatever else is true', () => {
    const q = [msg('a', 1, 'accepted'), msg('b', 2, 'pending'), msg('c', 3, 'pending')];
    expect(queueWait(row('Running', { openPrompts: 1 }), q, E)).toEqual({ messageId: 'b', reason: 'prompt_open' });
    expect(queueWait(row('Ready', { openPrompts: 1 }), [msg('b', 2, 'pending')], E)).toEqual({ messageId: 'b', reason: 'prompt_open' });
  });
  it('after the answer, a turn that asked keeps the follow-up for the next turn', () => {
    expect(queueWait(row('Running', { turnAsked: true }), [msg('a', 1, 'accepted'), msg('b', 2, 'pending')], E)).toEqual({
      messageId: 'b',
      reason: 'turn_asked',
    });
  });
  it('the gates in their own words: not ready, the final being saved; a deliverable head waits only for its hand-over', () => {
    expect(queueWait(row('Starting'), [msg('a', 1, 'pending')], E)).toEqual({ messageId: 'a', reason: 'session_not_ready' });
    expect(queueWait(row('Running'), [msg('a', 1, 'accepted', { finalText: true }), msg('b', 2, 'pending')], E)).toEqual({
      messageId: 'b',
      reason: 'final_pending',
    });
    expect(queueWait(row('Ready'), [msg('a', 1, 'pending'), msg('b', 2, 'pending')], E)).toEqual({ messageId: 'a', reason: null });
  });
});

describe('pump decision under a usage limit or a budget (spendHold)', () => {
  const limit = { kind: 'usage_limit', resetsAt: new Date(T.getTime() + 3_600_000) } as const;
  const budget = { kind: 'budget_reached', scope: 'day', budgetUsd: 5, spentUsd: 5 } as const;
  const table: {
    name: string;
    row: PumpRow;
    queue: ReturnType<typeof msg>[];
    spend: typeof limit | typeof budget | null;
    kind: 'deliver' | 'drain' | 'none';
  }[] = [
    { name: 'Ready, no hold → the head goes', row: row('Ready'), queue: [msg('a', 1, 'pending')], spend: null, kind: 'deliver' },
    { name: 'Ready, usage limit → it waits', row: row('Ready'), queue: [msg('a', 1, 'pending')], spend: limit, kind: 'none' },
    { name: 'Ready, budget reached → it waits', row: row('Ready'), queue: [msg('a', 1, 'pending')], spend: budget, kind: 'none' },
    {
      name: 'Running, a follow-up under a limit waits too',
      row: row('Running'),
      queue: [msg('m', 1, 'accepted', { nativeTurnId: 't' }), msg('a', 2, 'pending')],
      spend: limit,
      kind: 'none',
    },
    { name: 'Running with nothing in flight still drains under a hold', row: row('Running'), queue: [msg('a', 1, 'pending')], spend: limit, kind: 'drain' },
    {
      name: 'an expired Ready session with a held message does not drain',
      row: row('Ready', { lifetimeExpired: true }),
      queue: [msg('a', 1, 'pending')],
      spend: budget,
      kind: 'none',
    },
  ];
  for (const c of table) {
    it(c.name, () => {
      expect(pumpDecision(c.row, c.queue, null, T, 'engine', c.spend).kind).toBe(c.kind);
    });
  }
  it('the queue says what holds the head: the limit with its reset, or the budget', () => {
    const q = [msg('a', 1, 'pending'), msg('b', 2, 'pending')];
    expect(queueWait(row('Ready'), q, 'engine', limit)).toEqual({ messageId: 'a', reason: 'usage_limit', until: limit.resetsAt });
    expect(queueWait(row('Ready'), q, 'engine', budget)).toEqual({ messageId: 'a', reason: 'budget_reached' });
    // A queue gate that holds anyway is named first: the limit is not what the head waits for.
    expect(queueWait(row('Ready', { openPrompts: 1 }), q, 'engine', limit)).toEqual({ messageId: 'a', reason: 'prompt_open' });
  });
});
