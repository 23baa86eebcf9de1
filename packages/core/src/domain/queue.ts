import type { QueueSummary, SessionEffect, SessionState } from './session-types.ts';

export * from './queue-outcomes.ts';

export const MESSAGE_STATUSES = ['pending', 'leased', 'accepted', 'completed', 'terminal_failed', 'failed', 'unknown', 'cancelled'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * One durable inbound message as the gates see it (no text: nothing here ever matches by text).
 * - `pending`: stored, not handed to the CLI. A dispatcher may hold a `claimedBy` on it while it
 *   waits for its predecessor's outcome to be saved (stored as the row's lease owner).
 * - `leased`: handed to the CLI, acceptance confirmation (receipt) pending.
 * - `accepted`: receipt stored; stays so until a real terminal event.
 * - `cancelled`: the user cancelled it before any hand-over (`message-change.ts`); never handed over,
 *   never typed, final.
 */
export interface QueueMessage {
  id: string;
  /** Per-session arrival order. */
  seq: number;
  status: MessageStatus;
  /** The main request this follow-up joined; null for a main request. */
  mainMessageId: string | null;
  /** Exact receipt link (Codex native turn id, Claude user record id); null when never linked. */
  nativeTurnId: string | null;
  claimedBy: string | null;
  /** Accepted a second time, or its receipt matched inexactly: never put back in the queue. */
  reaccepted?: boolean;
  inexactMatch?: boolean;
}

const IN_FLIGHT: ReadonlySet<MessageStatus> = new Set(['leased', 'accepted']);

export function summarizeQueue(messages: readonly QueueMessage[]): QueueSummary {
  return {
    inFlight: messages.some((m) => IN_FLIGHT.has(m.status)),
    waiting: messages.some((m) => m.status === 'pending'),
  };
}

/**
 * Whether it is certain that no native conversation exists for a session, so that starting its CLI
 * again replaces nothing the user had (domain README, decision 7). All of it must hold:
 * - Bria created the session (a discovered one has a native conversation on disk) and it was never
 *   archived (every archived session is only ever resumed);
 * - no receipt was ever bound to it (`userTurns`);
 * - every message is `pending` or `cancelled`: never handed to a CLI, or handed back with the
 *   agent's proof that nothing was typed (a message is cancelled only then: `message-change.ts`). A `leased`, `accepted`, `completed`, `terminal_failed`, `unknown` or `failed`
 *   message may have reached a CLI (a `failed` one may have been leased before it failed), so any
 *   of them means "maybe".
 * - the agent never refused a start again for this session because something may have reached its
 *   CLI (`conversationMayExist`, from its delivery marks, turns and the CLI's own store).
 * The agent checks its own delivery marks and journal before it starts again (node agent: commands/start-session.ts).
 */
export function conversationNeverBegan(
  row: { launchSource: string; archivedAt: Date | null; userTurns: number; conversationMayExist?: boolean },
  messages: readonly Pick<QueueMessage, 'status'>[],
): boolean {
  return (
    row.launchSource === 'bria' &&
    row.archivedAt === null &&
    row.userTurns === 0 &&
    row.conversationMayExist !== true &&
    messages.every((m) => m.status === 'pending' || m.status === 'cancelled')
  );
}

/** Work Bria already took for this session and has not finished: lifetime expiry waits for it. */
export function hasAcceptedWork(summary: QueueSummary): boolean {
  return summary.inFlight || summary.waiting;
}

/** What the gates need to know about the session besides its messages. */
export interface SessionFacts {
  state: SessionState;
  /** An outcome write failed and has not succeeded since: the queue is blocked. */
  outcomeWriteFailed: boolean;
  /** The current turn's final arrived but its outcomes are not durable yet (incl. final-save retries). */
  finalReceived: boolean;
  /** The dispatcher asking; a claim held by another dispatcher blocks. */
  dispatcherId: string;
  /**
   * A permission request or question of the CLI may be on its screen (`Session.openPrompts`): both
   * CLIs take a paste + Enter there as the highlighted answer and lose the text, so nothing is typed.
   */
  promptOpen?: boolean;
  /**
   * The running turn asked the user (a permission request or question was opened in it, answered or
   * not): a follow-up no longer joins that turn but waits for its end and goes as the next main
   * request. Typed into a turn that resumes after an answer, Codex folds the text into the turn and
   * the answer the model was giving to the first message never reaches the user; a turn that asked
   * is one the user is steering by the answer already (docs/hooks-channel.md, "Messages sent while a
   * request is open").
   */
  turnAsked?: boolean;
}

/** Why the oldest pending message is not handed to the CLI now (`nextDeliverable`). */
export const BLOCK_REASONS = [
  'nothing_pending',
  'outcome_write_failed',
  'claimed_elsewhere',
  'session_not_ready',
  'predecessor_in_flight',
  'acceptance_pending',
  'final_pending',
  'prompt_open',
  'turn_asked',
  'order',
] as const;
export type BlockReason = (typeof BLOCK_REASONS)[number];

export type Deliverable =
  | { ok: true; message: QueueMessage; mode: 'main' }
  | { ok: true; message: QueueMessage; mode: 'follow_up'; mainMessageId: string }
  | { ok: false; reason: BlockReason };

/** States where a new main request may be typed: idle prompt (Ready) or the pre-expiry backlog. */
const MAIN_STATES: ReadonlySet<SessionState> = new Set(['Ready', 'ClosingAfterWork']);
/** States where a follow-up may join the running turn. Not Stopping: later messages wait for the stop. */
const FOLLOW_UP_STATES: ReadonlySet<SessionState> = new Set(['Running', 'ClosingAfterWork']);

/**
 * The only message that may be handed to the CLI next, or why none may. Only the oldest pending
 * message is ever a candidate, so order is kept; nothing but `pending` is ever returned, so an
 * `unknown`, `failed` or accepted message is never re-sent. Session state alone never opens the
 * queue: the outcomes of the main request and every follow-up — including one still `leased` —
 * must be durable.
 */
export function nextDeliverable(messages: readonly QueueMessage[], facts: SessionFacts): Deliverable {
  if (facts.outcomeWriteFailed) return { ok: false, reason: 'outcome_write_failed' };
  const ordered = [...messages].sort((a, b) => a.seq - b.seq);
  const head = ordered.find((m) => m.status === 'pending');
  if (!head) return { ok: false, reason: 'nothing_pending' };
  if (head.claimedBy !== null && head.claimedBy !== facts.dispatcherId) return { ok: false, reason: 'claimed_elsewhere' };
  if (facts.promptOpen === true) return { ok: false, reason: 'prompt_open' };

  const inFlight = ordered.filter((m) => IN_FLIGHT.has(m.status));
  if (inFlight.length === 0) {
    return MAIN_STATES.has(facts.state) ? { ok: true, message: head, mode: 'main' } : { ok: false, reason: 'session_not_ready' };
  }
  if (!FOLLOW_UP_STATES.has(facts.state)) return { ok: false, reason: 'predecessor_in_flight' };
  if (facts.finalReceived) return { ok: false, reason: 'final_pending' };
  if (facts.turnAsked === true) return { ok: false, reason: 'turn_asked' };
  // One acceptance at a time: a second hand-over before the first receipt could reorder them.
  if (inFlight.some((m) => m.status === 'leased')) return { ok: false, reason: 'acceptance_pending' };
  const mains = inFlight.filter((m) => m.mainMessageId === null);
  const main = mains[mains.length - 1];
  if (!main) return { ok: false, reason: 'acceptance_pending' };
  const lastInFlight = inFlight[inFlight.length - 1];
  if (lastInFlight && head.seq < lastInFlight.seq) return { ok: false, reason: 'order' };
  return { ok: true, message: head, mode: 'follow_up', mainMessageId: main.id };
}

/** The `deliver` command for a message `nextDeliverable` offered, under the current observer claim. */
export function deliverCommand(d: Extract<Deliverable, { ok: true }>, generation: number): Extract<SessionEffect, { type: 'send_command' }> {
  return {
    type: 'send_command',
    kind: 'deliver',
    generation,
    messageId: d.message.id,
    ...(d.mode === 'follow_up' ? { mainMessageId: d.mainMessageId } : {}),
  };
}
