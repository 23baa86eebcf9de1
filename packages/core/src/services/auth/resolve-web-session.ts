import { findWebSessionByHash, findWebSessionById, touchWebSession, type WebSessionDto } from '../../db/repos/auth.ts';
import type { Db } from '../../db/client.ts';
import { LAST_SEEN_WRITE_MS, sha256Hex, webIdleMs } from './secrets.ts';

export interface SessionUser {
  id: string;
  name: string;
  language: string | null;
}

export interface WebSessionContext {
  sessionId: string;
  csrfToken: string;
  expiresAt: Date;
  user: SessionUser;
}

/** Pure: a session row admits requests while not revoked, not past its end and not idle too long. */
export function webSessionLive(row: Pick<WebSessionDto, 'revokedAt' | 'expiresAt' | 'lastSeenAt'> | null, now: Date, idleMs: number): boolean {
  return row !== null && row.revokedAt === null && row.expiresAt > now && now.getTime() - row.lastSeenAt.getTime() < idleMs;
}

/**
 * The live session a cookie secret belongs to, or null when unknown, revoked, expired or idle
 * longer than `BRIA_WEB_IDLE_HOURS` (`webIdleMs`). A request that passes is recorded as the
 * session's last use (at most once a minute).
 */
export async function resolveWebSession(opts: { db: Db; secret: string | undefined | null; now?: Date; idleMs?: number }): Promise<WebSessionContext | null> {
  if (!opts.secret || !/^[A-Za-z0-9_-]{20,128}$/.test(opts.secret)) return null;
  const row = await findWebSessionByHash(opts.db, sha256Hex(opts.secret));
  const now = opts.now ?? new Date();
  if (!row || !webSessionLive(row, now, opts.idleMs ?? webIdleMs())) return null;
  if (now.getTime() - row.lastSeenAt.getTime() >= LAST_SEEN_WRITE_MS) {
    await touchWebSession(opts.db, { id: row.id, now, unlessAfter: new Date(now.getTime() - LAST_SEEN_WRITE_MS) });
  }
  return {
    sessionId: row.id,
    csrfToken: row.csrfToken,
    expiresAt: row.expiresAt,
    user: { id: row.user.id, name: row.user.name, language: row.user.language },
  };
}

/**
 * Whether the session a live stream was opened with may still receive (issue 30): signed out, signed
 * out everywhere, expired or idle — the stream ends. Reading does not count as use.
 */
export async function webSessionStillLive(opts: { db: Db; sessionId: string; now?: Date; idleMs?: number }): Promise<boolean> {
  const row = await findWebSessionById(opts.db, opts.sessionId);
  return webSessionLive(row, opts.now ?? new Date(), opts.idleMs ?? webIdleMs());
}
