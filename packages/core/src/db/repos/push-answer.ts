import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { DbOrTx } from './sessions.ts';

/**
 * The answer tokens of permission-request pushes (issue 32). A token is 32 random bytes
 * (base64url) carried only inside the push payload, which is encrypted for that one browser
 * (RFC 8291); the table keeps its SHA-256, the request, the device and the user it is bound to, its
 * expiry and its first use. Single use is one conditional UPDATE: of two presses (or a replay) one
 * row update wins.
 */

/** How long a notification's Allow / Deny stays valid; after that the notification opens the request's page. */
export const PUSH_ANSWER_TTL_MS = 60 * 60_000;

const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

export async function createPushAnswerToken(
  db: DbOrTx,
  o: { promptId: string; subscriptionId: string; userId: string; now: Date; promptExpiresAt?: Date | null },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const cap = o.now.getTime() + PUSH_ANSWER_TTL_MS;
  const expiresAt = new Date(o.promptExpiresAt ? Math.min(cap, o.promptExpiresAt.getTime()) : cap);
  await db.pushAnswerToken.create({
    data: { id: randomUUID(), tokenHash: hashOf(token), promptId: o.promptId, subscriptionId: o.subscriptionId, userId: o.userId, expiresAt },
  });
  return { token, expiresAt };
}

export type PushAnswerTokenUse =
  | { ok: true; promptId: string; userId: string; subscriptionId: string }
  /** No such token (never issued, its device removed, or swept after expiry). */
  | { ok: false; reason: 'unknown' }
  | { ok: false; reason: 'expired'; promptId: string }
  | { ok: false; reason: 'used'; promptId: string; decision: string | null };

/** Takes the token's one use: the first caller gets `ok`, every later one `used`. */
export async function usePushAnswerToken(db: DbOrTx, o: { token: string; decision: string; now: Date }): Promise<PushAnswerTokenUse> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(o.token)) return { ok: false, reason: 'unknown' };
  const tokenHash = hashOf(o.token);
  const won = await db.pushAnswerToken.updateMany({
    where: { tokenHash, usedAt: null, expiresAt: { gt: o.now } },
    data: { usedAt: o.now, usedDecision: o.decision },
  });
  const row = await db.pushAnswerToken.findUnique({ where: { tokenHash } });
  if (!row) return { ok: false, reason: 'unknown' };
  if (won.count === 1) return { ok: true, promptId: row.promptId, userId: row.userId, subscriptionId: row.subscriptionId };
  if (row.usedAt) return { ok: false, reason: 'used', promptId: row.promptId, decision: row.usedDecision };
  return { ok: false, reason: 'expired', promptId: row.promptId };
}

/** Retention: tokens a day past their expiry are of no use to anyone. */
export async function sweepPushAnswerTokens(db: DbOrTx, now: Date): Promise<number> {
  const r = await db.pushAnswerToken.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - 24 * 3_600_000) } } });
  return r.count;
}
