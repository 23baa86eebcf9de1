import { z } from 'zod';
import { PUSH_EVENT_KINDS } from '../../domain/push-routing.ts';
import type { Db } from '../client.ts';
import type { DbOrTx } from './sessions.ts';

/**
 * The push outbox (issue 32): one row per (push, device), written in the transaction of the fact
 * it announces and sent by the hub's push sender. A separate table rather than `Outbox` with a
 * `push` channel: a push belongs to a device (its row goes when the subscription is removed, by
 * foreign key), carries the Web Push options (TTL, urgency, topic) as columns, and is ordered per
 * device and tag, where `Outbox` orders per Telegram chat and its payload union is Telegram's.
 */

/** What the service worker gets (encrypted end to end, RFC 8291). Minimal: the session's title and the kind. */
export const zPushPayload = z.object({
  v: z.literal(1),
  /** `close`: the notification with `tag` is withdrawn (answered elsewhere). */
  action: z.enum(['show', 'close']),
  kind: z.enum([...PUSH_EVENT_KINDS, 'test']),
  tag: z.string().max(64),
  title: z.string().max(120),
  /** The prompt's or final's first line, only when Settings allow it. */
  body: z.string().max(200).optional(),
  sessionId: z.uuid().optional(),
  promptId: z.uuid().optional(),
  /** The dashboard page to open (relative). */
  url: z.string().max(200),
  /**
   * A permission request's Allow / Deny (issue 32): the single-use token this device sends back
   * to `/api/push/answer`, and when it stops being taken.
   */
  answer: z.object({ token: z.string().length(43), expiresAt: z.iso.datetime() }).optional(),
});
export type PushPayload = z.infer<typeof zPushPayload>;

export interface PushRowInput {
  subscriptionId: string;
  dedupeKey: string;
  payload: PushPayload;
  topic: string;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  ttlSeconds: number;
  now: Date;
}

/** Stores pushes once per dedupe key and wakes the sender. Returns how many were new. */
export async function enqueuePushes(db: DbOrTx, rows: PushRowInput[]): Promise<number> {
  if (rows.length === 0) return 0;
  const r = await db.pushOutbox.createMany({
    data: rows.map((row) => {
      const payload = zPushPayload.parse(row.payload);
      return {
        subscriptionId: row.subscriptionId,
        dedupeKey: row.dedupeKey,
        action: payload.action,
        eventKind: payload.kind,
        sessionId: payload.sessionId ?? null,
        promptId: payload.promptId ?? null,
        tag: payload.tag,
        topic: row.topic,
        urgency: row.urgency,
        ttlSeconds: row.ttlSeconds,
        payload,
        nextAttemptAt: row.now,
        createdAt: row.now,
      };
    }),
    skipDuplicates: true,
  });
  if (r.count > 0) await db.$executeRaw`select pg_notify('bria_push', '')`;
  return r.count;
}

/**
 * The notification `tag` is over (the prompt was answered, here or elsewhere): shows not yet sent
 * are withdrawn (deleted: nothing was sent), and each device that was sent one (or is being sent
 * one) gets a `close` push. Returns the devices to close.
 */
export async function withdrawPushes(db: DbOrTx, tag: string): Promise<string[]> {
  // A show tried before (a network error may have delivered it), being sent or sent may be on screen.
  const shown = await db.pushOutbox.findMany({
    where: { tag, action: 'show', OR: [{ status: { in: ['sending', 'sent'] } }, { status: 'pending', attempts: { gt: 0 } }] },
    select: { subscriptionId: true },
    distinct: ['subscriptionId'],
  });
  await db.pushOutbox.deleteMany({ where: { tag, action: 'show', status: 'pending' } });
  return shown.map((r) => r.subscriptionId);
}

export interface ClaimedPush {
  id: bigint;
  subscriptionId: string;
  action: string;
  eventKind: string;
  promptId: string | null;
  topic: string;
  urgency: string;
  ttlSeconds: number;
  payload: unknown;
  attempts: number;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/**
 * Claims due pushes with a lease (FOR UPDATE SKIP LOCKED: two senders never hold one row). A push
 * waits only for an earlier push of the same device and tag (a `close` never overtakes its `show`);
 * every other push goes independently, so one slow or failing device never holds another.
 */
export async function claimPushes(db: Db, o: { limit: number; leaseMs: number; now: Date }): Promise<ClaimedPush[]> {
  const until = new Date(o.now.getTime() + o.leaseMs);
  const rows = await db.$queryRaw<ClaimedPush[]>`
    update "PushOutbox" p set status = 'sending', "nextAttemptAt" = ${until}, attempts = p.attempts + 1
    from "PushSubscription" s
    where s.id = p."subscriptionId" and p.id in (
      select id from "PushOutbox" q
      where q.status in ('pending', 'sending') and q."nextAttemptAt" <= ${o.now}
        and not exists (
          select 1 from "PushOutbox" e
          where e."subscriptionId" = q."subscriptionId" and e.tag = q.tag and e.id < q.id and e.status in ('pending', 'sending'))
      order by id limit ${o.limit} for update skip locked)
    returning p.id, p."subscriptionId", p.action, p."eventKind", p."promptId", p.topic, p.urgency, p."ttlSeconds", p.payload, p.attempts,
      s.endpoint, s.p256dh, s.auth`;
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** When the next push is due (null: none waiting), so the sender sleeps exactly until then. */
export async function nextPushDue(db: Db): Promise<Date | null> {
  const r = await db.pushOutbox.findFirst({
    where: { status: { in: ['pending', 'sending'] } },
    orderBy: { nextAttemptAt: 'asc' },
    select: { nextAttemptAt: true },
  });
  return r?.nextAttemptAt ?? null;
}

export async function markPushSent(db: Db, o: { id: bigint; subscriptionId: string; now: Date }): Promise<void> {
  await db.$transaction([
    db.pushOutbox.updateMany({ where: { id: o.id, status: 'sending' }, data: { status: 'sent', sentAt: o.now, lastError: null } }),
    db.pushSubscription.updateMany({ where: { id: o.subscriptionId }, data: { lastPushAt: o.now, lastError: null, failureCount: 0 } }),
  ]);
}

/** A failed attempt: claimable again at `retryAt`, or failed for good when null. The device's error is shown in Settings. */
export async function markPushFailed(db: Db, o: { id: bigint; subscriptionId: string; error: string; retryAt: Date | null }): Promise<void> {
  const error = o.error.slice(0, 500);
  await db.$transaction([
    db.pushOutbox.updateMany({
      where: { id: o.id, status: 'sending' },
      data: o.retryAt ? { status: 'pending', nextAttemptAt: o.retryAt, lastError: error } : { status: 'failed', lastError: error },
    }),
    db.pushSubscription.updateMany({ where: { id: o.subscriptionId }, data: { lastError: error, failureCount: { increment: 1 } } }),
  ]);
}

/** A push that must not go any more (its prompt was answered before it was sent): removed, nothing was sent. */
export async function dropPush(db: Db, id: bigint): Promise<void> {
  await db.pushOutbox.deleteMany({ where: { id, status: 'sending' } });
}

/** Prompts among `ids` that still wait for the user. */
export async function pendingPromptIds(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.permissionPrompt.findMany({ where: { id: { in: ids }, state: 'pending' }, select: { id: true } });
  return new Set(rows.map((r) => r.id));
}

/** Where one push stands (null: gone, with its removed subscription). */
export async function pushStatusByKey(db: DbOrTx, dedupeKey: string): Promise<{ status: string; lastError: string | null } | null> {
  return db.pushOutbox.findUnique({ where: { dedupeKey }, select: { status: true, lastError: true } });
}
