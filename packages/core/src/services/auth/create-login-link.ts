import { findOrCreateDashboardUser, insertLoginToken } from '../../db/repos/auth.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../domain/errors.ts';
import { LOGIN_LINK_TTL_MS, randomSecret, sha256Hex } from './secrets.ts';

export interface CreateLoginLinkOptions {
  db: Db;
  /** The dashboard's public origin, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  telegramUserId?: bigint | number;
  name?: string;
  now?: Date;
}

export interface LoginLinkDto {
  url: string;
  expiresAt: Date;
  userId: string;
}

/**
 * A one-time dashboard login link. The token travels only in the returned URL; the database keeps
 * its SHA-256. The launcher prints one for the first user ("owner"); the bot sends one on /login.
 */
export async function createLoginLink(opts: CreateLoginLinkOptions): Promise<LoginLinkDto> {
  let base: URL;
  try {
    base = new URL(opts.baseUrl);
  } catch (cause) {
    throw new AppError('INVALID_INPUT', { message: 'login link base URL is not a URL', cause });
  }
  const now = opts.now ?? new Date();
  const telegramUserId = opts.telegramUserId === undefined ? undefined : BigInt(opts.telegramUserId);
  const user = await findOrCreateDashboardUser(opts.db, {
    telegramUserId,
    name: opts.name?.trim() || (telegramUserId === undefined ? 'owner' : `telegram ${telegramUserId}`),
  });
  const token = randomSecret();
  const expiresAt = new Date(now.getTime() + LOGIN_LINK_TTL_MS);
  await insertLoginToken(opts.db, { userId: user.id, tokenHash: sha256Hex(token), expiresAt });
  const url = new URL('/login', base);
  url.searchParams.set('token', token);
  return { url: url.toString(), expiresAt, userId: user.id };
}
