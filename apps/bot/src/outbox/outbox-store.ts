import type { Db } from '@bria/core/db';

/**
 * The bot's side of the outbox contract (core `db/repos/outbox.ts`): claim due rows of the
 * `telegram` channel with a lease (FOR UPDATE SKIP LOCKED, so two bot processes never hold one
 * row), then finish each row in ONE statement that both records the Telegram message id(s) and
 * marks it sent. A multi-part final records each part's id as it goes (`externalId` is the
 * comma-separated list of delivered parts), so a restart continues with the next part. Rows of
 * one chat are claimed one at a time in id order, so a retried row is never overtaken.
 */
export const CHANNEL = 'telegram';

export interface ClaimedRow { id: bigint; dedupeKey: string; kind: string; chatId: bigint | null; sessionId: string | null; payload: unknown; attempts: number; externalId: string | null }

export async function claimRows(db: Db, o: { limit: number; leaseMs: number; now?: Date }): Promise<ClaimedRow[]> {
  const now = o.now ?? new Date();
  const until = new Date(now.getTime() + o.leaseMs);
  const rows = await db.$queryRaw<ClaimedRow[]>`
    update "Outbox" o set status = 'sending', "nextAttemptAt" = ${until}, attempts = o.attempts + 1
    where o.id in (
      select id from "Outbox"
      where channel = ${CHANNEL} and status in ('pending', 'sending') and "nextAttemptAt" <= ${now}
        -- A chat's messages keep their order: nothing overtakes an earlier row still to be sent.
        and not exists (
          select 1 from "Outbox" e
          where e.channel = ${CHANNEL} and e."chatId" = "Outbox"."chatId" and e.id < "Outbox".id and e.status in ('pending', 'sending'))
      order by id limit ${o.limit} for update skip locked)
    returning o.id, o."dedupeKey", o.kind, o."chatId", o."sessionId", o.payload, o.attempts, o."externalId"`;
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** One part of a multi-part row was delivered: remember its id and keep holding the lease. */
export async function recordPart(db: Db, id: bigint, externalIds: number[], leaseUntil: Date): Promise<void> {
  await db.outbox.updateMany({ where: { id, status: 'sending' }, data: { externalId: externalIds.join(','), nextAttemptAt: leaseUntil } });
}

/** `payload`, when given, replaces the row's payload in the same statement (a secret removed, `finishedPayload`). */
export async function markSent(db: Db, id: bigint, externalIds: number[], now = new Date(), payload?: object): Promise<void> {
  await db.outbox.updateMany({ where: { id, status: 'sending' }, data: { status: 'sent', sentAt: now, externalId: externalIds.join(',') || null, ...(payload ? { payload } : {}) } });
}

export async function markRetry(db: Db, id: bigint, at: Date, error: string): Promise<void> {
  await db.outbox.updateMany({ where: { id, status: 'sending' }, data: { status: 'pending', nextAttemptAt: at, lastError: error.slice(0, 500) } });
}

/** Gives back rows claimed but not attempted (e.g. after a 429), without counting an attempt. */
export async function release(db: Db, ids: bigint[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.$executeRaw`update "Outbox" set status = 'pending', "nextAttemptAt" = ${at}, attempts = greatest(attempts - 1, 0) where id = any(${ids}) and status = 'sending'`;
}

export async function markFailed(db: Db, id: bigint, error: string, payload?: object): Promise<void> {
  await db.outbox.updateMany({ where: { id, status: 'sending' }, data: { status: 'failed', lastError: error.slice(0, 500), ...(payload ? { payload } : {}) } });
}

export const partIds = (externalId: string | null): number[] => (externalId ? externalId.split(',').filter(Boolean).map(Number) : []);

/**
 * A background session's final is held (its row is finished without a message) until the user opens
 * that session. Opening it queues the final once more, as an active one; the dedupe key carries the
 * request's id, so opening it again (from the notice, then from /sessions) never shows it twice.
 * Returns true when a held final was queued now.
 */
export async function releaseHeldFinal(db: Db, o: { chatId: bigint; sessionId: string; now?: Date }): Promise<boolean> {
  const held = await db.outbox.findMany({
    where: { channel: CHANNEL, chatId: o.chatId, sessionId: o.sessionId, kind: 'final' },
    orderBy: { id: 'desc' }, take: 1, select: { dedupeKey: true, payload: true },
  });
  const row = held[0];
  const payload = row?.payload as { active?: boolean } | undefined;
  if (!row || payload?.active !== false) return false;
  const now = o.now ?? new Date();
  const r = await db.outbox.createMany({
    data: [{ channel: CHANNEL, dedupeKey: `open:${row.dedupeKey}`, kind: 'final', chatId: o.chatId, sessionId: o.sessionId, payload: { ...(row.payload as object), active: true }, nextAttemptAt: now, createdAt: now }],
    skipDuplicates: true,
  });
  return r.count === 1;
}

/**
 * A row the bot itself writes (every handler reply, card and edit — outbox/queue.ts —, the resume
 * status and a resume refused at once): through the same
 * outbox as the engine's rows, so it keeps the chat's order and its Telegram message id is recorded
 * durably. A repeat of the key is a no-op. Returns whether it was new.
 */
export async function enqueueBotRow(db: Db, o: { dedupeKey: string; kind: string; chatId: bigint; sessionId: string | null; payload: object; now?: Date; dueAt?: Date }): Promise<boolean> {
  const now = o.now ?? new Date();
  const r = await db.outbox.createMany({
    data: [{ channel: CHANNEL, dedupeKey: o.dedupeKey, kind: o.kind, chatId: o.chatId, sessionId: o.sessionId, payload: o.payload, nextAttemptAt: o.dueAt ?? now, createdAt: now }],
    skipDuplicates: true,
  });
  return r.count === 1;
}

/**
 * The "Resuming …" status of a chat's latest Resume of this session that has not yet become the card
 * or the failure notice: its row and, once sent, its Telegram message id.
 */
export async function openResumeStatus(db: Db, chatId: bigint, sessionId: string): Promise<{ id: bigint; status: string; messageId: number | undefined; payload: Record<string, unknown> } | null> {
  const row = await db.outbox.findFirst({
    where: { channel: CHANNEL, chatId, sessionId, kind: 'resume_status' },
    orderBy: { id: 'desc' }, select: { id: true, status: true, externalId: true, payload: true },
  });
  const payload = (row?.payload ?? {}) as Record<string, unknown>;
  if (!row || row.status === 'failed' || payload.settled === true) return null;
  return { id: row.id, status: row.status, messageId: partIds(row.externalId)[0], payload };
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
  const r = await db.outbox.updateMany({ where: { channel: CHANNEL, dedupeKey, status: 'pending' }, data: { kind: o.kind, payload: o.payload, nextAttemptAt: o.now ?? new Date() } });
  return r.count === 1;
}

/** A held-back row that has nothing to say any more is withdrawn before it is sent. */
export async function withdrawBotRow(db: Db, dedupeKey: string): Promise<void> {
  await db.outbox.deleteMany({ where: { channel: CHANNEL, dedupeKey, status: 'pending' } });
}
