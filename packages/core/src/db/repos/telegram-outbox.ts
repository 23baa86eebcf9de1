import type { Db } from '../client.ts';
import { storableJson } from '../../protocol/event-frames.ts';
import { outboxPartIds } from './outbox-claim.ts';

/**
 * Rows the Telegram bot writes and reads back in the `telegram` outbox channel (its own kinds are in
 * `zBotOutboxPayload`, outbox-payload.ts), next to the rows the engine writes.
 */
export const TELEGRAM_CHANNEL = 'telegram';
const CHANNEL = TELEGRAM_CHANNEL;

/**
 * A background session's final is held (its row is finished without a message) until the user opens
 * that session. Opening it queues the final once more, as an active one; the dedupe key carries the
 * request's id, so opening it again (from the notice, then from /sessions) never shows it twice.
 * Returns true when a held final was queued now.
 */
export async function releaseHeldFinal(db: Db, o: { chatId: bigint; sessionId: string; now?: Date }): Promise<boolean> {
  const held = await db.outbox.findMany({
    where: { channel: CHANNEL, chatId: o.chatId, sessionId: o.sessionId, kind: 'final' },
    orderBy: { id: 'desc' },
    take: 1,
    select: { dedupeKey: true, payload: true },
  });
  const row = held[0];
  const payload = row?.payload as { active?: boolean } | undefined;
  if (!row || payload?.active !== false) return false;
  const now = o.now ?? new Date();
  const r = await db.outbox.createMany({
    data: [
      {
        channel: CHANNEL,
        dedupeKey: `open:${row.dedupeKey}`,
        kind: 'final',
        chatId: o.chatId,
        sessionId: o.sessionId,
        payload: { ...(row.payload as object), active: true },
        nextAttemptAt: now,
        createdAt: now,
      },
    ],
    skipDuplicates: true,
  });
  return r.count === 1;
}

/**
 * A row the bot itself writes (every handler reply, card and edit — the bot's outbox/queue.ts —, the resume
 * status and a resume refused at once): through the same
 * outbox as the engine's rows, so it keeps the chat's order and its Telegram message id is recorded
 * durably. A repeat of the key is a no-op. Returns whether it was new.
 */
export async function enqueueBotRow(
  db: Db,
  o: { dedupeKey: string; kind: string; chatId: bigint; sessionId: string | null; payload: object; now?: Date; dueAt?: Date },
): Promise<boolean> {
  const now = o.now ?? new Date();
  const r = await db.outbox.createMany({
    data: [
      {
        channel: CHANNEL,
        dedupeKey: o.dedupeKey,
        kind: o.kind,
        chatId: o.chatId,
        sessionId: o.sessionId,
        // A reply may echo what the user typed: a NUL or lone surrogate in it (jsonb refuses both) becomes U+FFFD.
        payload: storableJson(o.payload),
        nextAttemptAt: o.dueAt ?? now,
        createdAt: now,
      },
    ],
    skipDuplicates: true,
  });
  return r.count === 1;
}

/**
 * The "Resuming …" status of a chat's latest Resume of this session that has not yet become the card
 * or the failure notice: its row and, once sent, its Telegram message id.
 */
export async function openResumeStatus(
  db: Db,
  chatId: bigint,
  sessionId: string,
): Promise<{ id: bigint; status: string; messageId: number | undefined; payload: Record<string, unknown> } | null> {
  const row = await db.outbox.findFirst({
    where: { channel: CHANNEL, chatId, sessionId, kind: 'resume_status' },
    orderBy: { id: 'desc' },
    select: { id: true, status: true, externalId: true, payload: true },
  });
  const payload = (row?.payload ?? {}) as Record<string, unknown>;
  if (!row || row.status === 'failed' || payload.settled === true) return null;
  return { id: row.id, status: row.status, messageId: outboxPartIds(row.externalId)[0], payload };
}

/** The status message became the card or the notice: it is never turned into anything again. */
export async function settleResumeStatus(db: Db, id: bigint, payload: Record<string, unknown>): Promise<void> {
  await db.outbox.update({ where: { id }, data: { payload: { ...payload, settled: true } }, select: { id: true } });
}

/** A bot row held back (`dueAt`) becomes due now; false when it was already claimed or sent. */
export async function releaseBotRow(db: Db, dedupeKey: string, now = new Date()): Promise<boolean> {
  const r = await db.outbox.updateMany({ where: { channel: CHANNEL, dedupeKey, status: 'pending' }, data: { nextAttemptAt: now } });
  return r.count === 1;
}

/** A held-back row, still unsent, becomes another one (same place in the chat's order); false when it was already claimed or sent. */
export async function rewriteBotRow(db: Db, dedupeKey: string, o: { kind: string; payload: object; now?: Date }): Promise<boolean> {
  const r = await db.outbox.updateMany({
    where: { channel: CHANNEL, dedupeKey, status: 'pending' },
    data: { kind: o.kind, payload: o.payload, nextAttemptAt: o.now ?? new Date() },
  });
  return r.count === 1;
}

/** A held-back row that has nothing to say any more is withdrawn before it is sent. */
export async function withdrawBotRow(db: Db, dedupeKey: string): Promise<void> {
  await db.outbox.deleteMany({ where: { channel: CHANNEL, dedupeKey, status: 'pending' } });
}

/**
 * The Telegram message id(s) a row produced once it was sent (e.g. a prompt's `open` message, which
 * its later phases edit in place); empty while it is unsent, failed or unknown.
 */
export async function sentMessageIds(db: Db, dedupeKey: string): Promise<number[]> {
  const row = await db.outbox.findUnique({ where: { dedupeKey }, select: { channel: true, status: true, externalId: true } });
  return row?.channel === CHANNEL && row.status !== 'failed' ? outboxPartIds(row.externalId) : [];
}
