import { MESSAGE_CHANGE_REFUSAL_TEXT, type MessageChangeRefusal } from '@bria/core/domain';
import type { MessageKey } from '../i18n/catalog.ts';

type Status = 'pending' | 'leased' | 'accepted' | 'completed' | 'terminal_failed' | 'failed' | 'unknown' | 'cancelled';

/** What holds the session's queue while a dialog of the CLI is open (from the session page's facts). */
export type HeldBy = { kind: 'start_dialog' } | { kind: 'prompt'; tool: string } | { kind: 'question' } | { kind: 'dialog' } | null;

export interface QueueLineInput {
  message: { id: string; seq: number; status: Status; outcomeDetail: string | null };
  /** The session's messages (for "behind #n"). */
  items: readonly { seq: number; status: string }[];
  /** What the oldest pending message waits for (`sessions.get` queueWait). */
  wait: { messageId: string; reason: string | null } | null;
  heldBy: HeldBy;
}

/** The states a user tells apart; `data-state` on the page. */
export type QueueLineState = 'waiting' | 'held' | 'typing' | 'delivered' | 'answered' | 'failed' | 'unknown' | 'cancelled';

export interface QueueLine {
  state: QueueLineState;
  key: MessageKey;
  vars?: Record<string, string | number>;
  /** Still changeable as far as the page knows (the service decides under the session's lock). */
  changeable: boolean;
}

/**
 * Which dialog holds the queue: the start dialog the session page shows (`waitingDialog`), else the
 * oldest prompt of the CLI still open (a permission request names its tool; a question or a
 * dialog of the CLI says so).
 */
export function heldByOf(startDialog: string | null, prompts: readonly { kind: string; toolName: string; resolvedAt: string | null }[] | undefined): HeldBy {
  if (startDialog) return { kind: 'start_dialog' };
  const open = prompts?.find((p) => p.resolvedAt === null);
  if (!open) return null;
  if (open.kind === 'tool') return { kind: 'prompt', tool: open.toolName };
  return { kind: open.kind === 'question' ? 'question' : 'dialog' };
}

const clip = (s: string | null) => (s ?? '').slice(0, 160);

/**
 * Where one of the user's messages is in the session's queue, in words: waiting (and for what),
 * held while a dialog of the CLI is open (which one), being typed, delivered, answered, failed or
 * unknown with the reason, cancelled. Only a waiting or held message offers Edit and Cancel.
 */
export function queueLine(i: QueueLineInput): QueueLine {
  const m = i.message;
  switch (m.status) {
    case 'pending':
      return pendingLine(i);
    case 'leased':
      return { state: 'typing', key: 'conv.queueLine.typing', changeable: false };
    case 'accepted':
      return { state: 'delivered', key: 'conv.queueLine.delivered', changeable: false };
    case 'completed':
      return { state: 'answered', key: 'conv.queueLine.answered', changeable: false };
    case 'terminal_failed':
    case 'failed':
      return {
        state: 'failed',
        key: m.outcomeDetail ? 'conv.queueLine.failedWhy' : 'conv.queueLine.failed',
        vars: { detail: clip(m.outcomeDetail) },
        changeable: false,
      };
    case 'unknown':
      return {
        state: 'unknown',
        key: m.outcomeDetail ? 'conv.queueLine.unknownWhy' : 'conv.queueLine.unknown',
        vars: { detail: clip(m.outcomeDetail) },
        changeable: false,
      };
    case 'cancelled':
      return { state: 'cancelled', key: 'conv.queueLine.cancelled', changeable: false };
    default:
      return m.status satisfies never;
  }
}

function pendingLine(i: QueueLineInput): QueueLine {
  const { message: m, wait } = i;
  if (wait?.messageId === m.id) {
    const held = heldLine(wait.reason, i.heldBy);
    if (held) return held;
    const key = wait.reason === null || wait.reason === 'claimed_elsewhere' ? 'conv.queuedWait.handing' : (`conv.queuedWait.${wait.reason}` as MessageKey);
    return { state: 'waiting', key, changeable: true };
  }
  const before = i.items.filter((x) => x.status === 'pending' && x.seq < m.seq).at(-1);
  if (before) return { state: 'waiting', key: 'conv.queuedWait.behind', vars: { seq: before.seq }, changeable: true };
  return { state: 'waiting', key: 'conv.queued', changeable: true };
}

/** The head waits because a dialog of the CLI is open: say which one. */
function heldLine(reason: string | null, heldBy: HeldBy): QueueLine | null {
  if (reason === 'prompt_open') {
    if (heldBy?.kind === 'prompt') return { state: 'held', key: 'conv.queueLine.heldPrompt', vars: { tool: heldBy.tool }, changeable: true };
    if (heldBy?.kind === 'question') return { state: 'held', key: 'conv.queueLine.heldQuestion', changeable: true };
    if (heldBy?.kind === 'dialog') return { state: 'held', key: 'conv.queueLine.heldDialog', changeable: true };
    return { state: 'held', key: 'conv.queuedWait.prompt_open', changeable: true };
  }
  if (reason === 'session_not_ready' && heldBy?.kind === 'start_dialog') return { state: 'held', key: 'conv.queueLine.heldStartDialog', changeable: true };
  return null;
}

const REFUSAL_BY_TEXT = new Map<string, MessageChangeRefusal>(
  Object.entries(MESSAGE_CHANGE_REFUSAL_TEXT).map(([reason, text]) => [text, reason as MessageChangeRefusal]),
);

/** The catalog key for the service's refusal of a cancel or edit (its `userMessage`), if it is one. */
export function changeRefusalKey(userMessage: string | null | undefined): MessageKey | null {
  const reason = userMessage ? REFUSAL_BY_TEXT.get(userMessage) : undefined;
  return reason ? (`conv.change.refused.${reason}` as MessageKey) : null;
}

/** The key of the cancelled messages sent after every turn shown: they go with the queued ones, by seq. */
export const TAIL = 'tail';

/**
 * Where each cancelled message goes among the journal's turns: after the turn of the newest message
 * sent before it ('' = before the first turn, only when the journal shows every turn; a cancelled
 * message older than the turns shown is left out with them); after the last turn, `TAIL`.
 */
export function placeCancelled<M extends { id: string; seq: number; status: string }>(
  turns: readonly { ref: string; messageId: string | null }[],
  items: readonly M[],
  all: boolean,
): Map<string, M[]> {
  const seqOf = new Map(items.map((m) => [m.id, m.seq]));
  const anchors = turns.flatMap((turn) => {
    const seq = turn.messageId ? seqOf.get(turn.messageId) : undefined;
    return seq === undefined ? [] : [{ ref: turn.ref, seq }];
  });
  const out = new Map<string, M[]>();
  for (const m of items) {
    if (m.status !== 'cancelled') continue;
    const anchor = anchors.filter((a) => a.seq < m.seq).at(-1);
    const later = anchors.some((a) => a.seq > m.seq);
    const key = !later && (anchor || all) ? TAIL : anchor ? anchor.ref : all ? '' : null;
    if (key === null) continue;
    out.set(key, [...(out.get(key) ?? []), m]);
  }
  return out;
}
