import { describe, expect, it } from 'vitest';
import { type DeliveryState, decideMessageChange, MESSAGE_CHANGE_REFUSAL_TEXT, type MessageChange, type MessageChangeRefusal } from './message-change.ts';
import { conversationNeverBegan, MESSAGE_STATUSES, type MessageStatus, nextDeliverable, type QueueMessage } from './queue.ts';

type Expected = 'ok' | MessageChangeRefusal;

/** Every status × deliver state, for the caller's own message. Written out, not derived from the rule. */
const TABLE: Record<MessageStatus, Record<DeliveryState, Expected>> = {
  pending: { none: 'ok', issued: 'being_delivered' },
  leased: { none: 'being_delivered', issued: 'being_delivered' },
  accepted: { none: 'already_delivered', issued: 'already_delivered' },
  completed: { none: 'final', issued: 'final' },
  terminal_failed: { none: 'final', issued: 'final' },
  failed: { none: 'final', issued: 'final' },
  unknown: { none: 'final', issued: 'final' },
  cancelled: { none: 'cancelled', issued: 'cancelled' },
};
const CHANGES: MessageChange[] = ['cancel', 'edit'];
const DELIVERY: DeliveryState[] = ['none', 'issued'];

describe('decideMessageChange, every status × deliver state × change', () => {
  it('the table covers every status', () => {
    expect(Object.keys(TABLE).sort()).toEqual([...MESSAGE_STATUSES].sort());
  });
  for (const status of MESSAGE_STATUSES) {
    for (const delivery of DELIVERY) {
      for (const change of CHANGES) {
        const expected = TABLE[status][delivery];
        it(`${change} of a ${status} message, deliver ${delivery} → ${expected}`, () => {
          const d = decideMessageChange(change, { status, delivery, ownedByCaller: true });
          expect(d).toEqual(expected === 'ok' ? { ok: true } : { ok: false, reason: expected });
        });
        it(`${change} of someone else's ${status} message, deliver ${delivery} → not_yours`, () => {
          expect(decideMessageChange(change, { status, delivery, ownedByCaller: false })).toEqual({ ok: false, reason: 'not_yours' });
        });
      }
    }
  }

  it('only a pending message with no deliver issued is ever changeable', () => {
    const allowed = MESSAGE_STATUSES.flatMap((status) =>
      DELIVERY.filter((delivery) => decideMessageChange('cancel', { status, delivery, ownedByCaller: true }).ok).map((delivery) => `${status}/${delivery}`),
    );
    expect(allowed).toEqual(['pending/none']);
  });

  it('every refusal that is not "not yours" or "cancelled" tells the user it was already delivered', () => {
    for (const r of ['being_delivered', 'already_delivered', 'final'] as const) expect(MESSAGE_CHANGE_REFUSAL_TEXT[r]).toMatch(/^already delivered/);
  });
});

describe('a cancelled message and the queue', () => {
  const m = (id: string, seq: number, status: MessageStatus): QueueMessage => ({ id, seq, status, mainMessageId: null, nativeTurnId: null, claimedBy: null });

  it('is never offered for delivery: the next pending one goes instead', () => {
    const d = nextDeliverable([m('a', 1, 'cancelled'), m('b', 2, 'pending')], {
      state: 'Ready',
      outcomeWriteFailed: false,
      finalReceived: false,
      dispatcherId: 'engine',
    });
    expect(d).toMatchObject({ ok: true, mode: 'main', message: { id: 'b' } });
  });

  it('counts as never typed for a fresh start', () => {
    const row = { launchSource: 'bria', archivedAt: null, userTurns: 0 };
    expect(conversationNeverBegan(row, [{ status: 'cancelled' }, { status: 'pending' }])).toBe(true);
    expect(conversationNeverBegan(row, [{ status: 'cancelled' }, { status: 'leased' }])).toBe(false);
  });
});
