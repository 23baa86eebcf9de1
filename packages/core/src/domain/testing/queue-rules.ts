import type { MessageStatus, QueueMessage } from '../queue.ts';

/*
 * The queue model's rules, used by the property test's simulation (queue-sim.ts) as its oracle: every
 * status update the product's pure outcome functions (applyTurnOutcome, applyInterruptOutcome,
 * recheckStatus, failUndelivered) produce must be a legal move here. The product applies those
 * updates with a compare-and-set on the old status (db/repos/messages.ts applyStatusUpdates); only
 * tests use these functions, so they live with the domain's test helpers.
 */

/** Legal status moves. `completed` and `terminal_failed` are final: never downgraded. */
export const STATUS_MOVES = {
  // Never delivered and never will be (session closed, resume failed; cancelled by the user before
  // any `deliver` existed: domain/message-change.ts).
  pending: ['leased', 'failed', 'cancelled'],
  // `pending` only when the agent proves nothing was typed (e.g. it refused a stale command).
  leased: ['accepted', 'pending', 'terminal_failed', 'failed', 'unknown'],
  accepted: ['completed', 'terminal_failed', 'failed', 'unknown'],
  // Only with an exact message id ↔ turn id link and verified evidence (see `checkMove`).
  failed: ['completed', 'terminal_failed'],
  unknown: ['completed', 'terminal_failed'],
  completed: [],
  terminal_failed: [],
  cancelled: [],
} as const satisfies Record<MessageStatus, readonly MessageStatus[]>;

/** Verified evidence of an outcome, tied to one exact native turn. */
export interface ExactProof {
  turnId: string;
  verified: boolean;
}

export type MoveCheck = { ok: true } | { ok: false; reason: 'illegal_move' | 'needs_exact_evidence' };

/**
 * Whether `message` may move to `to`. Outcomes are never reclassified in bulk: leaving `failed` or
 * `unknown` needs a proof whose turn id equals the message's stored link (old receipts without a
 * turn id can never be resolved) and whose evidence was verified.
 */
export function checkMove(message: QueueMessage, to: MessageStatus, proof?: ExactProof): MoveCheck {
  const allowed: readonly MessageStatus[] = STATUS_MOVES[message.status];
  if (!allowed.includes(to)) return { ok: false, reason: 'illegal_move' };
  if (message.status === 'failed' || message.status === 'unknown') {
    const exact = proof?.verified === true && message.nativeTurnId !== null && proof.turnId === message.nativeTurnId;
    if (!exact) return { ok: false, reason: 'needs_exact_evidence' };
  }
  return { ok: true };
}

export interface PredecessorSaveFailure {
  /** Pending messages whose dispatcher claim is released: they stay `pending`. */
  releaseClaims: string[];
  /** Messages that were handed over, re-accepted or matched inexactly: left exactly as they are. */
  untouched: string[];
  /** The failed write blocks the queue until it succeeds. */
  blockQueue: true;
}

/**
 * A predecessor's outcome could not be saved. A waiting message does not count as sent: it stays
 * `pending` and its claim is released. Nothing is ever moved back to `pending` here — a message
 * already handed over, re-accepted or matched inexactly keeps its status.
 */
export function onPredecessorSaveFailed(messages: readonly QueueMessage[], failedMessageId: string): PredecessorSaveFailure {
  const failed = messages.find((m) => m.id === failedMessageId);
  const after = messages.filter((m) => failed === undefined || m.seq > failed.seq).sort((a, b) => a.seq - b.seq);
  const releaseClaims: string[] = [];
  const untouched: string[] = [];
  for (const m of after) {
    const exact = !m.reaccepted && !m.inexactMatch;
    if (m.status === 'pending' && exact) {
      if (m.claimedBy !== null) releaseClaims.push(m.id);
    } else if (m.status === 'leased' || m.status === 'accepted' || !exact) {
      untouched.push(m.id);
    }
  }
  return { releaseClaims, untouched, blockQueue: true };
}
