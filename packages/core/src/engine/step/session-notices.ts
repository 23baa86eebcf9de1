import { type NotifyKind, progressOf, type SessionState } from '../../domain/index.ts';
import { enqueueOutbox, type OutboxPayload } from '../../db/repos/outbox.ts';
import { chatsForSession, type SessionRow, type Tx } from '../../db/repos/sessions.ts';
import { pushEvent } from './push-notices.ts';

export const TELEGRAM = 'telegram';

type Build = (chat: { chatId: bigint; active: boolean }) => { key: string; payload: OutboxPayload } | null;

/** Writes one outbox row per chat the session lives in (`chatsForSession`; in a one-person product: that person's chat). */
export async function notifyChats(tx: Tx, row: SessionRow, now: Date, build: Build): Promise<void> {
  const chats = await chatsForSession(tx, row);
  for (const c of chats) {
    const n = build({ chatId: c.chatId, active: c.activeSessionId === row.id });
    if (n) await enqueueOutbox(tx, { channel: TELEGRAM, dedupeKey: `${n.key}:${c.chatId}`, chatId: c.chatId, payload: n.payload, now });
  }
}

/** The outbox rows for a domain `notify` effect; `version` is the session version after the move. */
export async function notifyEffect(tx: Tx, row: SessionRow, kind: NotifyKind, o: { now: Date; detail?: string }): Promise<void> {
  const base = { sessionId: row.id, nodeId: row.nodeId };
  switch (kind) {
    case 'card_update':
      return notifyChats(tx, row, o.now, ({ active }) => ({
        key: `card:${row.id}:${row.version}`,
        payload: { kind: 'card_update', ...base, state: row.state, version: row.version, active },
      }));
    case 'work_finished':
      // The open card shows the final itself; only a background session gets a notice (it never steals focus).
      return notifyChats(tx, row, o.now, ({ active }) =>
        active
          ? null
          : {
              key: `done:${row.id}:${row.version}`,
              payload: { kind: 'background_done', ...base, title: row.title, jump: { sessionId: row.id, nodeId: row.nodeId } },
            },
      );
    case 'resume_failed':
      // One notice per resume attempt: the attempt's generation is in the key.
      await notifyChats(tx, row, o.now, () => ({
        key: `resume_failed:${row.id}:${row.observerGeneration}`,
        payload: { kind: 'resume_failed', ...base, cause: o.detail ?? 'unknown' },
      }));
      // The CLI ended and could not be brought back: the session ended unexpectedly (push, issue 32).
      await pushEvent(tx, row, { event: 'session_ended_unexpectedly', key: `resume_failed:${row.id}:${row.observerGeneration}`, now: o.now });
      return;
    case 'final_save_failing':
    case 'final_save_recovered': {
      const phase = kind === 'final_save_failing' ? 'failing' : 'recovered';
      return notifyChats(tx, row, o.now, () => ({
        key: `final_save:${phase}:${row.id}:${row.pendingFinalEventId ?? row.version}`,
        payload: { kind: 'final_save', ...base, phase, ...(phase === 'failing' ? { cause: o.detail ?? 'database write failed' } : {}) },
      }));
    }
    case 'stop_unconfirmed':
      return notifyChats(tx, row, o.now, () => ({
        key: `progress:stop:unconfirmed:${row.id}:${row.version}`,
        payload: { kind: 'progress', ...base, topic: 'stop', phase: 'unconfirmed' },
      }));
    case 'closed':
      return notifyChats(tx, row, o.now, () => ({
        key: `progress:close:done:${row.id}:${row.version}`,
        payload: { kind: 'progress', ...base, topic: 'close', phase: 'done' },
      }));
    default:
      return kind satisfies never;
  }
}

/** Progress notices for recovery, stop and close, derived from the move itself (`progressOf`, domain). */
export async function notifyProgress(tx: Tx, row: SessionRow, from: SessionState, to: SessionState, now: Date): Promise<void> {
  const p = progressOf(from, to);
  if (!p) return;
  await notifyChats(tx, row, now, () => ({
    key: `progress:${p.topic}:${p.phase}:${row.id}:${row.version}`,
    payload: { kind: 'progress', sessionId: row.id, nodeId: row.nodeId, topic: p.topic, phase: p.phase },
  }));
}
