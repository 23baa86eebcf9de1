import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../domain/index.ts';
import { isLoopbackHost } from '../../domain/hub-reach.ts';
import type { Db } from '../../db/client.ts';
import { enqueuePushes, pushStatusByKey } from '../../db/repos/push-outbox.ts';
import {
  getPushSubscription,
  listPushSubscriptions,
  type PushSubscriptionDto,
  removePushSubscription,
  renamePushSubscription,
  setPageVisibility,
  upsertPushSubscription,
} from '../../db/repos/push.ts';

export type { PushSubscriptionDto };

/**
 * The user's push devices (issue 32): the dashboard subscribes a browser with the server's VAPID
 * public key, lists, renames and removes devices, and sends a test notification. The hub's push
 * sender does the sending; these services only store rows.
 */

/**
 * The VAPID public key a browser subscribes with (`applicationServerKey`); null until the hub has
 * made the pair (at its start). Only read here: a query never writes (a request refused for its
 * CSRF token must leave the database as it was, tests/security/trpc-credentials.test.ts).
 */
export async function pushVapidKey(deps: { db: Db }): Promise<{ publicKey: string | null }> {
  const have = await deps.db.pushVapidKeys.findUnique({ where: { id: 1 }, select: { publicKey: true } });
  return { publicKey: have?.publicKey ?? null };
}

/**
 * Where a push may be sent: a push service over https, or (tests, a local push service) plain
 * http on this computer's loopback. Anything else would send the user's notifications in the clear
 * or let a page point the hub at an arbitrary address.
 */
export function pushEndpointRefusal(endpoint: string): string | null {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    return 'the endpoint is not a URL';
  }
  if (u.username || u.password) return 'the endpoint must not carry a user or password';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && isLoopbackHost(u.hostname)) return null;
  return 'the endpoint must be https (or http on 127.0.0.1 / localhost)';
}

const b64urlBytes = (s: string): number | null => (/^[A-Za-z0-9_-]+={0,2}$/.test(s) ? Buffer.from(s, 'base64url').length : null);

/** The browser's keys (RFC 8291): a P-256 public point (65 bytes, uncompressed) and a 16-byte auth secret. */
export function pushKeysRefusal(keys: { p256dh: string; auth: string }): string | null {
  const p = b64urlBytes(keys.p256dh);
  if (p !== 65 || Buffer.from(keys.p256dh, 'base64url')[0] !== 0x04) return 'p256dh must be an uncompressed P-256 public key (65 bytes, base64url)';
  if (b64urlBytes(keys.auth) !== 16) return 'auth must be 16 bytes (base64url)';
  return null;
}

export async function subscribePush(
  deps: { db: Db; now?: Date },
  input: { userId: string; subscription: { endpoint: string; keys: { p256dh: string; auth: string } }; name: string; userAgent?: string | null },
): Promise<PushSubscriptionDto> {
  const refusal = pushEndpointRefusal(input.subscription.endpoint) ?? pushKeysRefusal(input.subscription.keys);
  if (refusal) throw new AppError('INVALID_INPUT', { message: refusal, userMessage: 'push.invalid_subscription' });
  const name = input.name.trim();
  if (name === '') throw new AppError('INVALID_INPUT', { message: 'a device needs a name', userMessage: 'push.invalid_name' });
  return upsertPushSubscription(deps.db, {
    userId: input.userId,
    endpoint: input.subscription.endpoint,
    p256dh: input.subscription.keys.p256dh,
    auth: input.subscription.keys.auth,
    name,
    userAgent: input.userAgent?.slice(0, 300) ?? null,
    now: deps.now ?? new Date(),
  });
}

export function listPushDevices(deps: { db: Db }, userId: string): Promise<PushSubscriptionDto[]> {
  return listPushSubscriptions(deps.db, userId);
}

export async function removePushDevice(deps: { db: Db }, o: { userId: string; id: string }): Promise<{ id: string }> {
  if (!(await removePushSubscription(deps.db, o))) throw new AppError('NOT_FOUND', { message: 'push device not found', userMessage: 'push.not_found' });
  return { id: o.id };
}

export async function renamePushDevice(deps: { db: Db }, o: { userId: string; id: string; name: string }): Promise<PushSubscriptionDto> {
  const name = o.name.trim();
  if (name === '') throw new AppError('INVALID_INPUT', { message: 'a device needs a name', userMessage: 'push.invalid_name' });
  const r = await renamePushSubscription(deps.db, { ...o, name });
  if (!r) throw new AppError('NOT_FOUND', { message: 'push device not found', userMessage: 'push.not_found' });
  return r;
}

/**
 * "Send a test notification": one push to that device through the hub's sender, then waits (at
 * most `waitMs`) for the push service's answer, so the page can say in words what happened:
 * `sent`, `failed` (with the service's answer), `removed` (the service said the subscription is
 * gone), or `pending` (not answered yet: the hub may be down, or a retry is scheduled).
 */
export async function sendTestPush(
  deps: { db: Db; now?: Date },
  o: { userId: string; id: string; waitMs?: number },
): Promise<{ status: 'sent' | 'failed' | 'removed' | 'pending'; error: string | null }> {
  const sub = await getPushSubscription(deps.db, o.id);
  if (!sub || sub.userId !== o.userId) throw new AppError('NOT_FOUND', { message: 'push device not found', userMessage: 'push.not_found' });
  const key = `test:${o.id}:${randomUUID()}`;
  await enqueuePushes(deps.db, [
    {
      subscriptionId: o.id,
      dedupeKey: key,
      payload: { v: 1, action: 'show', kind: 'test', tag: `test-${o.id}`, title: 'Bria', url: '/settings' },
      topic: `test${o.id.replace(/-/g, '').slice(0, 28)}`,
      urgency: 'high',
      ttlSeconds: 60,
      now: deps.now ?? new Date(),
    },
  ]);
  const end = Date.now() + (o.waitMs ?? 8_000);
  for (;;) {
    const row = await pushStatusByKey(deps.db, key);
    if (!row) return { status: 'removed', error: 'the push service says this subscription no longer exists' };
    if (row.status === 'sent') return { status: 'sent', error: null };
    if (row.status === 'failed') return { status: 'failed', error: row.lastError };
    if (Date.now() >= end) return { status: 'pending', error: row.lastError };
    await sleep(200);
  }
}

/**
 * The dashboard reports which session page it shows while visible (every 20 s, and `null` when
 * hidden): no push for that session while any browser shows it. A report lives 45 s, so a closed
 * tab or a sleeping laptop counts as not looking.
 */
export const PAGE_VISIBLE_MS = 45_000;
export async function reportPageVisibility(deps: { db: Db; now?: Date }, o: { webSessionId: string; sessionId: string | null }): Promise<void> {
  const now = deps.now ?? new Date();
  await setPageVisibility(deps.db, { webSessionId: o.webSessionId, sessionId: o.sessionId, until: new Date(now.getTime() + PAGE_VISIBLE_MS) });
}
