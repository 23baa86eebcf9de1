import type { MessageStatus, QueueMessage } from './queue.ts';

/** One planned status change; services write them atomically with the exact-session check. */
export interface StatusUpdate {
  id: string;
  from: MessageStatus;
  to: MessageStatus;
}

/** The main request and its follow-ups, in arrival order. */
function turnGroup(messages: readonly QueueMessage[], mainMessageId: string): QueueMessage[] {
  return messages.filter((m) => m.id === mainMessageId || m.mainMessageId === mainMessageId).sort((a, b) => a.seq - b.seq);
}

/**
 * A finished turn: the main request and its *accepted* follow-ups get the same outcome. A follow-up
 * still `leased` is left alone: without its receipt it is not proven part of this turn. So is one
 * whose receipt bound it to another native turn than the one that ended (`endedTurnId`): Claude runs
 * a follow-up as a turn of its own (its own prompt record), Codex one that arrived after the turn
 * ended; the agent reports each message's own end, and ending it with the main's would claim an
 * outcome that did not happen (a Claude follow-up read `completed` while its turn still waited on a
 * permission request, and the next message was handed to a CLI on a dialog; docs/reliability.md).
 */
export function applyTurnOutcome(
  messages: readonly QueueMessage[],
  mainMessageId: string,
  outcome: 'completed' | 'terminal_failed',
  endedTurnId: string | null = null,
): StatusUpdate[] {
  return turnGroup(messages, mainMessageId)
    .filter((m) => m.status === 'accepted')
    .filter((m) => endedTurnId === null || m.nativeTurnId === null || m.nativeTurnId === endedTurnId)
    .map((m) => ({ id: m.id, from: m.status, to: outcome }));
}

/**
 * One native turn's interrupt evidence (Claude's `[Request interrupted by user]` record or the idle
 * status after the Esc, Codex's `turn_aborted`): the message it names and every *accepted* message
 * linked to the same exact native turn (a Codex follow-up steered into that turn) get
 * `terminal_failed`. Nothing else is concluded from it, neither at a Stop nor otherwise: a follow-up
 * the CLI queued as a turn of its own (Claude) may still run after the interrupt, and a message whose
 * receipt is pending is not proven part of the interrupted turn. Those keep their status until their
 * own evidence arrives (receipt, final, interrupt, or `unknown` when none comes in time).
 */
export function applyInterruptOutcome(messages: readonly QueueMessage[], turn: { messageId: string; nativeTurnId: string | null }): StatusUpdate[] {
  return [...messages]
    .sort((a, b) => a.seq - b.seq)
    .filter((m) => m.status === 'accepted')
    .filter((m) => m.id === turn.messageId || (turn.nativeTurnId !== null && m.nativeTurnId === turn.nativeTurnId))
    .map((m) => ({ id: m.id, from: m.status, to: 'terminal_failed' }));
}

/**
 * A stop that ended without its confirmation (`stop_unresolved`): the messages it held are no
 * longer waited for. Nothing proves how their turns ended, so their outcome is `unknown` — never
 * `completed` or `terminal_failed` without the journal's word. Leased ones (no receipt yet) stay.
 */
export function endUnconfirmedStop(messages: readonly QueueMessage[]): StatusUpdate[] {
  return messages.filter((m) => m.status === 'accepted').map((m) => ({ id: m.id, from: m.status, to: 'unknown' }));
}

/** Never-delivered messages of a session that will not run them (closed, resume failed). */
export function failUndelivered(messages: readonly QueueMessage[]): StatusUpdate[] {
  return messages.filter((m) => m.status === 'pending').map((m) => ({ id: m.id, from: m.status, to: 'failed' }));
}

/** What an exact, bounded journal re-check (after reattach or reopen) found for one message. */
export type RecheckFinding =
  | { kind: 'final_complete'; turnId: string }
  | { kind: 'aborted'; turnId: string }
  | { kind: 'still_running' }
  /** Missing, incomplete, contradictory or unreadable evidence. */
  | { kind: 'no_evidence' };

/**
 * The status a message should have after a re-check, or null for "leave it". Evidence counts only
 * with the exact turn id stored on the message; confirmed outcomes are never downgraded; `unknown`
 * stays `unknown` without evidence; nothing is ever re-sent.
 */
export function recheckStatus(message: QueueMessage, finding: RecheckFinding, processAlive: boolean): MessageStatus | null {
  const exact = (turnId: string) => message.nativeTurnId !== null && message.nativeTurnId === turnId;
  switch (message.status) {
    case 'completed':
    case 'terminal_failed':
    case 'pending':
    case 'cancelled':
      return null;
    case 'failed':
    case 'unknown':
    case 'accepted':
    case 'leased':
      break;
    default:
      return message.status satisfies never;
  }
  switch (finding.kind) {
    case 'final_complete':
      return exact(finding.turnId) ? 'completed' : staysOrUnknown(message, processAlive);
    case 'aborted':
      return exact(finding.turnId) ? 'terminal_failed' : staysOrUnknown(message, processAlive);
    case 'still_running':
    case 'no_evidence':
      return staysOrUnknown(message, processAlive);
    default:
      return finding satisfies never;
  }
}

/** Losing observation keeps `accepted`; only a verified dead process with no evidence makes `unknown`. */
function staysOrUnknown(message: QueueMessage, processAlive: boolean): MessageStatus | null {
  if (message.status === 'failed' || message.status === 'unknown') return null;
  return processAlive ? null : 'unknown';
}
