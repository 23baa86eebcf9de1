import { findWebSessionByHash } from '../../db/repos/auth.ts';
import type { Db } from '../../db/client.ts';
import { sha256Hex } from './secrets.ts';

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

/** The live session a cookie secret belongs to, or null when unknown, revoked or expired. */
export async function resolveWebSession(opts: { db: Db; secret: string | undefined | null; now?: Date }): Promise<WebSessionContext | null> {
  if (!opts.secret || !/^[A-Za-z0-9_-]{20,128}$/.test(opts.secret)) return null;
  const row = await findWebSessionByHash(opts.db, sha256Hex(opts.secret));
  const now = opts.now ?? new Date();
  if (!row || row.revokedAt !== null || row.expiresAt <= now) return null;
  return {
    sessionId: row.id,
    csrfToken: row.csrfToken,
    expiresAt: row.expiresAt,
    user: { id: row.user.id, name: row.user.name, language: row.user.language },
  };
}
