import { type BlockReason, type Deliverable, nextDeliverable, type QueueMessage, summarizeQueue } from './queue.ts';
import type { QueueSummary, SessionState } from './session-types.ts';
import type { SpendHold } from './spend-gate.ts';

/** What the oldest pending message waits for: a queue gate, or a usage limit / budget (`spendHold`). */
export const SPEND_WAIT_REASONS = ['usage_limit', 'budget_reached'] as const;
export type QueueWaitReason = Exclude<BlockReason, 'nothing_pending'> | 'usage_limit' | 'budget_reached';

/**
 * The wait of a message the agent refused with `typed: false` (`untypedRetryDelay`): while the session
 * stays at `version` and before `until`, that message is not handed over again.
 */
export interface DeliveryHold {
  messageId: string;
  version: number;
  until: Date;
}

/** Whether the hold still applies to a session now at `version`. */
export const holdActive = (h: DeliveryHold | null, version: number, now: Date): h is DeliveryHold =>
  h !== null && h.version === version && now.getTime() < h.until.getTime();

/** States where "nothing in flight" is news the machine needs (level-triggered `work_drained`). */
const DRAIN_WHEN_IDLE: ReadonlySet<SessionState> = new Set(['Running', 'Stopping']);
/** States where the work is over only once nothing is in flight and nothing waits either. */
const DRAIN_WHEN_EMPTY: ReadonlySet<SessionState> = new Set(['ClosingAfterWork']);

/**
 * Drain rule: whether `work_drained` is due for a session in `state` whose queue is `q`. Running and
 * Stopping drain when nothing is in flight; ClosingAfterWork when nothing is in flight or waiting; a
 * Ready session whose lifetime ended drains once idle and empty (so the machine can close it).
 */
export function workDrained(state: SessionState, lifetimeExpired: boolean, q: QueueSummary): boolean {
  const expiredIdle = state === 'Ready' && lifetimeExpired && !q.inFlight && !q.waiting;
  return (DRAIN_WHEN_IDLE.has(state) && !q.inFlight) || (DRAIN_WHEN_EMPTY.has(state) && !q.inFlight && !q.waiting) || expiredIdle;
}

export interface PumpRow {
  state: SessionState;
  pendingFinalEventId: bigint | null;
  lifetimeExpired: boolean;
  version: number;
  openPrompts: number;
  /** A prompt was opened in the running turn (`SessionFacts.turnAsked`); false when nothing is in flight. */
  turnAsked?: boolean;
}
export type PumpDecision = { kind: 'deliver'; d: Extract<Deliverable, { ok: true }> } | { kind: 'drain' | 'none' };

/**
 * What the pump would do for this row and queue: hand a message over, raise `work_drained`, or nothing.
 * A head the agent refused with `typed: false` is not handed over while its hold applies (same
 * session version, before its time; see `DeliveryHold`): it still counts as waiting for the drain rules.
 */
export function pumpDecision(
  row: PumpRow,
  queue: readonly (QueueMessage & { finalText: boolean })[],
  hold: DeliveryHold | null,
  now: Date,
  dispatcherId: string,
  spend: SpendHold | null = null,
): PumpDecision {
  const d = pumpDeliverable(row, queue, dispatcherId);
  // `spend` (a usage limit until its reset, a budget reached: `spendHold`) holds every hand-over.
  if (d.ok && spend === null && !(holdActive(hold, row.version, now) && hold.messageId === d.message.id)) return { kind: 'deliver', d };
  return { kind: workDrained(row.state, row.lifetimeExpired, summarizeQueue(queue)) ? 'drain' : 'none' };
}

/** `nextDeliverable` with the facts the pump reads from the session row and its queue. */
function pumpDeliverable(row: PumpRow, queue: readonly (QueueMessage & { finalText: boolean })[], dispatcherId: string): Deliverable {
  const inFlight = queue.filter((m) => m.status === 'leased' || m.status === 'accepted');
  return nextDeliverable(queue, {
    state: row.state,
    outcomeWriteFailed: row.pendingFinalEventId !== null,
    finalReceived: row.pendingFinalEventId !== null || inFlight.some((m) => m.finalText),
    dispatcherId,
    promptOpen: row.openPrompts > 0,
    turnAsked: row.turnAsked === true,
  });
}

/**
 * What the oldest pending message waits for, as the pump sees it (the page shows it under the
 * message): the gate's reason, or null when nothing holds it but the hand-over itself (a pump is
 * on its way, or a retry's hold). Null overall when no message is pending.
 */
export function queueWait(
  row: PumpRow,
  queue: readonly (QueueMessage & { finalText: boolean })[],
  dispatcherId: string,
  spend: SpendHold | null = null,
): { messageId: string; reason: QueueWaitReason | null; until?: Date } | null {
  const head = [...queue].sort((a, b) => a.seq - b.seq).find((m) => m.status === 'pending');
  if (!head) return null;
  const d = pumpDeliverable(row, queue, dispatcherId);
  if (d.ok && spend?.kind === 'usage_limit') return { messageId: head.id, reason: 'usage_limit', until: spend.resetsAt };
  if (d.ok && spend?.kind === 'budget_reached') return { messageId: head.id, reason: 'budget_reached' };
  if (d.ok || d.reason === 'nothing_pending') return { messageId: head.id, reason: null };
  return { messageId: head.id, reason: d.reason };
}
