import { createECDH, randomUUID } from 'node:crypto';
import { DEFAULT_PUSH_PREFS, PUSH_EVENT_KINDS, PUSH_MODES, type PushEventKind, type PushMode, type PushPrefs } from '../../domain/push-routing.ts';
import type { DbOrTx } from './sessions.ts';

/**
 * Web Push storage (issue 32): the server's VAPID key pair, the browsers subscribed, the user's push
 * settings (columns of the one Settings row) and which session page a browser shows.
 */

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** A fresh P-256 key pair in the form push services and browsers take (what `web-push generate-vapid-keys` makes). */
export function generateVapidKeys(): VapidKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const priv = ecdh.getPrivateKey();
  // The scalar as exactly 32 bytes (a leading zero byte is dropped by getPrivateKey).
  const d = Buffer.concat([Buffer.alloc(Math.max(0, 32 - priv.length)), priv]);
  return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: d.toString('base64url') };
}

/** The server's VAPID key pair, made on first use (hub start or the dashboard's first ask) and kept. */
export function vapidKeys(db: DbOrTx): Promise<VapidKeys> {
  return ensureVapidKeys(db, generateVapidKeys);
}

/**
 * The VAPID key pair, made once: the first caller's pair is stored (`insert … on conflict do
 * nothing`), every caller reads the stored one, so two processes starting together agree.
 */
export async function ensureVapidKeys(db: DbOrTx, generate: () => VapidKeys): Promise<VapidKeys> {
  const have = await db.pushVapidKeys.findUnique({ where: { id: 1 }, select: { publicKey: true, privateKey: true } });
  if (have) return have;
  const made = generate();
  await db.pushVapidKeys.createMany({ data: [{ id: 1, publicKey: made.publicKey, privateKey: made.privateKey }], skipDuplicates: true });
  return db.pushVapidKeys.findUniqueOrThrow({ where: { id: 1 }, select: { publicKey: true, privateKey: true } });
}

export interface PushSubscriptionDto {
  id: string;
  name: string;
  userAgent: string | null;
  /** Only the push service's origin is shown: the endpoint's path is a capability. */
  service: string;
  createdAt: Date;
  lastPushAt: Date | null;
  lastError: string | null;
  failureCount: number;
}

const dtoSelect = {
  id: true,
  name: true,
  userAgent: true,
  endpoint: true,
  createdAt: true,
  lastPushAt: true,
  lastError: true,
  failureCount: true,
} as const;

function toDto(r: { endpoint: string } & Omit<PushSubscriptionDto, 'service'>): PushSubscriptionDto {
  const { endpoint, ...rest } = r;
  let service = '';
  try {
    service = new URL(endpoint).origin;
  } catch {
    service = '';
  }
  return { ...rest, service };
}

/** A browser subscribes (again): the endpoint is unique, so a repeat replaces keys and name and starts its counts afresh. */
export async function upsertPushSubscription(
  db: DbOrTx,
  s: { userId: string; endpoint: string; p256dh: string; auth: string; name: string; userAgent: string | null; now: Date },
): Promise<PushSubscriptionDto> {
  const data = { userId: s.userId, p256dh: s.p256dh, auth: s.auth, name: s.name, userAgent: s.userAgent, lastError: null, failureCount: 0 };
  const row = await db.pushSubscription.upsert({
    where: { endpoint: s.endpoint },
    create: { id: randomUUID(), endpoint: s.endpoint, createdAt: s.now, ...data },
    update: data,
    select: dtoSelect,
  });
  return toDto(row);
}

export async function listPushSubscriptions(db: DbOrTx, userId: string): Promise<PushSubscriptionDto[]> {
  const rows = await db.pushSubscription.findMany({ where: { userId }, orderBy: { createdAt: 'asc' }, select: dtoSelect });
  return rows.map(toDto);
}

export async function getPushSubscription(db: DbOrTx, id: string): Promise<(PushSubscriptionDto & { userId: string }) | null> {
  const row = await db.pushSubscription.findUnique({ where: { id }, select: { ...dtoSelect, userId: true } });
  if (!row) return null;
  const { userId, ...rest } = row;
  return { ...toDto(rest), userId };
}

/** Removes one of the user's subscriptions (its pending pushes go with it). Returns whether it existed. */
export async function removePushSubscription(db: DbOrTx, o: { id: string; userId?: string }): Promise<boolean> {
  const r = await db.pushSubscription.deleteMany({ where: { id: o.id, ...(o.userId ? { userId: o.userId } : {}) } });
  return r.count === 1;
}

export async function renamePushSubscription(db: DbOrTx, o: { id: string; userId: string; name: string }): Promise<PushSubscriptionDto | null> {
  const r = await db.pushSubscription.updateMany({ where: { id: o.id, userId: o.userId }, data: { name: o.name } });
  if (r.count === 0) return null;
  return toDto(await db.pushSubscription.findUniqueOrThrow({ where: { id: o.id }, select: dtoSelect }));
}

/** Every device a push may go to (one person's product: all the users' devices). */
export async function pushTargets(db: DbOrTx): Promise<{ id: string; userId: string }[]> {
  return db.pushSubscription.findMany({ select: { id: true, userId: true }, orderBy: { createdAt: 'asc' }, take: 100 });
}

const isKind = (k: string): k is PushEventKind => (PUSH_EVENT_KINDS as readonly string[]).includes(k);
const isMode = (m: string): m is PushMode => (PUSH_MODES as readonly string[]).includes(m);

export interface PushSettingsDto extends PushPrefs {
  timeZone: string;
}

/** The push columns of the settings row; absent means the defaults. */
export async function readPushSettings(db: DbOrTx): Promise<PushSettingsDto> {
  const row = await db.settings.findUnique({
    where: { id: 1 },
    select: { pushMode: true, pushKindsOff: true, pushQuietStart: true, pushQuietEnd: true, pushTimeZone: true, pushFirstLine: true },
  });
  if (!row) return { ...DEFAULT_PUSH_PREFS, timeZone: 'UTC' };
  return {
    mode: isMode(row.pushMode) ? row.pushMode : DEFAULT_PUSH_PREFS.mode,
    kindsOff: row.pushKindsOff.filter(isKind),
    quietHours: row.pushQuietStart !== null && row.pushQuietEnd !== null ? { start: row.pushQuietStart, end: row.pushQuietEnd } : null,
    firstLine: row.pushFirstLine,
    timeZone: row.pushTimeZone,
  };
}

export async function writePushSettings(db: DbOrTx, patch: Partial<PushSettingsDto>): Promise<PushSettingsDto> {
  const data = {
    ...(patch.mode === undefined ? {} : { pushMode: patch.mode }),
    ...(patch.kindsOff === undefined ? {} : { pushKindsOff: [...new Set(patch.kindsOff)] }),
    ...(patch.quietHours === undefined ? {} : { pushQuietStart: patch.quietHours?.start ?? null, pushQuietEnd: patch.quietHours?.end ?? null }),
    ...(patch.firstLine === undefined ? {} : { pushFirstLine: patch.firstLine }),
    ...(patch.timeZone === undefined ? {} : { pushTimeZone: patch.timeZone }),
  };
  await db.settings.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
  return readPushSettings(db);
}

/** A browser shows `sessionId`'s page and is visible (null: hidden or another page) until `until`. */
export async function setPageVisibility(db: DbOrTx, o: { webSessionId: string; sessionId: string | null; until: Date | null }): Promise<void> {
  await db.webSession.updateMany({ where: { id: o.webSessionId }, data: { visibleSessionId: o.sessionId, visibleUntil: o.sessionId ? o.until : null } });
}

/** Some signed-in browser shows the session's page right now. */
export async function sessionPageVisible(db: DbOrTx, sessionId: string, now: Date): Promise<boolean> {
  const n = await db.webSession.count({ where: { visibleSessionId: sessionId, visibleUntil: { gt: now }, revokedAt: null, expiresAt: { gt: now } } });
  return n > 0;
}

/** Returns whether the session exists. */
export async function writeSessionPushMuted(db: DbOrTx, sessionId: string, muted: boolean): Promise<boolean> {
  return (await db.session.updateMany({ where: { id: sessionId }, data: { pushMuted: muted } })).count === 1;
}

export async function sessionPushMuted(db: DbOrTx, sessionId: string): Promise<boolean> {
  return (await db.session.findUnique({ where: { id: sessionId }, select: { pushMuted: true } }))?.pushMuted === true;
}
