import type { MessageStatus } from './queue.ts';

/**
 * Cancel and edit of a queued message (issue 33), exactly-once safe.
 *
 * Decision: a message may be cancelled or edited only while it is `pending` and no `deliver` command
 * for it is outstanding, decided under the session's row lock — the lock the queue pump takes before
 * it leases a message and writes its `deliver` in the same transaction. So a change and a hand-over
 * are serialised: either the change commits first (the pump then never sees the message as
 * deliverable: a cancelled one is not `pending`, an edited one is typed with its new text) or the
 * hand-over commits first (the change then finds a `deliver` and is refused). Never both, never half.
 *
 * Once a `deliver` exists the change is refused whatever the command's transport state (not yet
 * sent, sent, acknowledged): from the moment the hub may put it on the wire the agent may be typing,
 * and only the agent's own answer `typed: false` proves it did not type — that answer releases the
 * lease (`leased → pending`, `deliveryId` cleared), after which the message may be changed again.
 * Taking a command back from the wire would need a second agent round trip with its own race; the
 * user can still stop the turn.
 */
export type MessageChange = 'cancel' | 'edit';

/** The `deliver` command holding the message: none (never issued, or answered `typed: false`), or one issued. */
export type DeliveryState = 'none' | 'issued';

export interface MessageChangeFacts {
  /** The message's queue status, `cancelled` included. */
  status: MessageStatus;
  delivery: DeliveryState;
  /** The message belongs to the session the caller named (or may see). */
  ownedByCaller: boolean;
}

export type MessageChangeRefusal =
  /** Not a message of this caller's session: said as "not found", never leaked. */
  | 'not_yours'
  /** Cancelled already: nothing left to cancel or edit. */
  | 'cancelled'
  /** A `deliver` was issued and no `typed: false` came back: the CLI may be typing it now. */
  | 'being_delivered'
  /** The CLI took it (receipt stored). */
  | 'already_delivered'
  /** Its turn ended (answered, failed, unknown): it is history. */
  | 'final';

export type MessageChangeDecision = { ok: true } | { ok: false; reason: MessageChangeRefusal };

/** Per status, with no `deliver` outstanding; a pending message with one issued is refused below. */
const BY_STATUS = {
  pending: null,
  leased: 'being_delivered',
  accepted: 'already_delivered',
  completed: 'final',
  terminal_failed: 'final',
  failed: 'final',
  unknown: 'final',
  cancelled: 'cancelled',
} as const satisfies Record<MessageStatus, MessageChangeRefusal | null>;

/** Whether `change` may be applied to a message now. Cancel and edit follow the same rule. */
export function decideMessageChange(_change: MessageChange, f: MessageChangeFacts): MessageChangeDecision {
  if (!f.ownedByCaller) return { ok: false, reason: 'not_yours' };
  const byStatus = BY_STATUS[f.status];
  if (byStatus !== null) return { ok: false, reason: byStatus };
  // Pending with a `deliver` issued cannot happen under the lock (lease and command are one write),
  // but if it ever did the agent may be typing: refuse rather than claim a cancel.
  if (f.delivery === 'issued') return { ok: false, reason: 'being_delivered' };
  return { ok: true };
}

/** Words for a refusal, for front ends and logs (the code is the machine reason). */
export const MESSAGE_CHANGE_REFUSAL_TEXT = {
  not_yours: 'message not found',
  cancelled: 'the message was cancelled already',
  being_delivered: 'already delivered: the message is being typed into the CLI',
  already_delivered: 'already delivered: the CLI took the message',
  final: 'already delivered: its turn has ended',
} as const satisfies Record<MessageChangeRefusal, string>;
