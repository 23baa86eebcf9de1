import type { Db } from '../client.ts';

/**
 * Delivery side of the outbox, the one claim every sender uses: claim due rows of a channel with a
 * lease (FOR UPDATE SKIP LOCKED, so two sender processes never hold one row), then finish each row
 * in ONE statement that both records the delivered message id(s) and marks it sent. A multi-part
 * row records each part's id as it goes (`externalId` is the comma-separated list of delivered
 * parts), so a restart continues with the next part. Rows of one chat are claimed one at a time in
 * id order, so a retried row is never overtaken. Payloads come back unparsed: a sender parses each
 * row with `zDeliveryPayload` (outbox-payload.ts) and fails the one row it cannot read.
 */
export interface ClaimedRow {
  id: bigint;
  dedupeKey: string;
  kind: string;
  chatId: bigint | null;
  sessionId: string | null;
  payload: unknown;
  attempts: number;
  externalId: string | null;
}

export async function claimOutbox(db: Db, o: { channel: string; limit: number; leaseMs: number; now?: Date }): Promise<ClaimedRow[]> {
  const now = o.now ?? new Date();
  const until = new Date(now.getTime() + o.leaseMs);
  const rows = await db.$queryRaw<ClaimedRow[]>`
    update "Outbox" o set status = 'sending', "nextAttemptAt" = ${until}, attempts = o.attempts + 1
    where o.id in (
      select id from "Outbox"
      where channel = ${o.channel} and status in ('pending', 'sending') and "nextAttemptAt" <= ${now}
        -- A chat's messages keep their order: nothing overtakes an earlier row still to be sent.
        and not exists (
          select 1 from "Outbox" e
          where e.channel = ${o.channel} and e."chatId" = "Outbox"."chatId" and e.id < "Outbox".id and e.status in ('pending', 'sending'))
      order by id limit ${o.limit} for update skip locked)
    returning o.id, o."dedupeKey", o.kind, o."chatId", o."sessionId", o.payload, o.attempts, o."externalId"`;
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** One part of a multi-part row was delivered: remember its id and keep holding the lease. */
export async function recordOutboxPart(db: Db, id: bigint, externalIds: number[], leaseUntil: Date): Promise<void> {
  await db.outbox.updateMany({ where: { id, status: 'sending' }, data: { externalId: externalIds.join(','), nextAttemptAt: leaseUntil } });
}

/** `payload`, when given, replaces the row's payload in the same statement (a secret removed). */
export async function markOutboxSent(db: Db, id: bigint, externalIds: number[], now = new Date(), payload?: object): Promise<void> {
  await db.outbox.updateMany({
    where: { id, status: 'sending' },
    data: { status: 'sent', sentAt: now, externalId: externalIds.join(',') || null, ...(payload ? { payload } : {}) },
  });
}

/** The row is claimable again at `at`. */
export async function markOutboxRetry(db: Db, id: bigint, at: Date, error: string): Promise<void> {
  await db.outbox.updateMany({ where: { id, status: 'sending' }, data: { status: 'pending', nextAttemptAt: at, lastError: error.slice(0, 500) } });
}

/** Gives back rows claimed but not attempted (e.g. after a 429), without counting an attempt. */
export async function releaseOutbox(db: Db, ids: bigint[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.$executeRaw`update "Outbox" set status = 'pending', "nextAttemptAt" = ${at}, attempts = greatest(attempts - 1, 0) where id = any(${ids}) and status = 'sending'`;
}

/** A permanent failure: never retried. */
export async function markOutboxFailed(db: Db, id: bigint, error: string, payload?: object): Promise<void> {
  await db.outbox.updateMany({ where: { id, status: 'sending' }, data: { status: 'failed', lastError: error.slice(0, 500), ...(payload ? { payload } : {}) } });
}

/** The message ids of the parts already delivered (`externalId`). */
export const outboxPartIds = (externalId: string | null): number[] => (externalId ? externalId.split(',').filter(Boolean).map(Number) : []);
