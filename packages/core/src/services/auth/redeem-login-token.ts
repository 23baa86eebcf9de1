import { consumeLoginToken, insertWebSession } from '../../db/repos/auth.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../domain/errors.ts';
import { randomSecret, sha256Hex, webSessionTtlMs } from './secrets.ts';

export interface RedeemLoginTokenOptions {
  db: Db;
  token: string;
  now?: Date;
}

export interface NewWebSessionDto {
  sessionId: string;
  userId: string;
  /** Goes into the httpOnly cookie; only its hash is stored. */
  secret: string;
  csrfToken: string;
  expiresAt: Date;
}

/** Why a link was refused; these are i18n keys the login page shows. */
export type LoginRefusal = 'login.unknown' | 'login.used' | 'login.expired';

/** Exchanges a one-time login token for a browser session (`webSessionTtlMs`, 30 days by default). A token works once. */
export async function redeemLoginToken(opts: RedeemLoginTokenOptions): Promise<NewWebSessionDto> {
  const now = opts.now ?? new Date();
  // Anything not shaped like our tokens is refused without touching the database.
  const result = /^[A-Za-z0-9_-]{20,128}$/.test(opts.token)
    ? await consumeLoginToken(opts.db, { tokenHash: sha256Hex(opts.token), now })
    : ({ status: 'unknown' } as const);
  if (result.status !== 'ok') {
    const userMessage: LoginRefusal = `login.${result.status}`;
    throw new AppError('UNAUTHORIZED', { message: `login token ${result.status}`, userMessage });
  }
  const secret = randomSecret();
  const csrfToken = randomSecret();
  const expiresAt = new Date(now.getTime() + webSessionTtlMs());
  const { id } = await insertWebSession(opts.db, { userId: result.userId, tokenHash: sha256Hex(secret), csrfToken, expiresAt, lastSeenAt: now });
  return { sessionId: id, userId: result.userId, secret, csrfToken, expiresAt };
}
