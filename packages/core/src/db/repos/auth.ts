import { randomUUID } from 'node:crypto';
import type { Db } from '../client.ts';

/** Dashboard users, one-time login tokens, browser sessions and agent-token listings. Only hashes are stored. */

export interface DashboardUserDto {
  id: string;
  name: string;
  telegramUserId: bigint | null;
  language: string | null;
}

const userSelect = { id: true, name: true, telegramUserId: true, language: true } as const;

/**
 * The user a login link is for. With a Telegram id: that person (created on first use). Without
 * one (the launcher's first-use link): the oldest user, or a new one when there is nobody yet.
 */
export async function findOrCreateDashboardUser(db: Db, opts: { telegramUserId?: bigint; name: string }): Promise<DashboardUserDto> {
  if (opts.telegramUserId !== undefined) {
    return db.dashboardUser.upsert({
      where: { telegramUserId: opts.telegramUserId },
      create: { id: randomUUID(), name: opts.name, telegramUserId: opts.telegramUserId },
      update: {},
      select: userSelect,
    });
  }
  const first = await db.dashboardUser.findFirst({ orderBy: { createdAt: 'asc' }, select: userSelect });
  if (first) return first;
  return db.dashboardUser.create({ data: { id: randomUUID(), name: opts.name }, select: userSelect });
}

export async function insertLoginToken(db: Db, opts: { userId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
  await db.loginToken.create({ data: { id: randomUUID(), ...opts }, select: { id: true } });
}

export type ConsumeLoginResult = { status: 'ok'; userId: string } | { status: 'unknown' } | { status: 'used' } | { status: 'expired' };

/** Marks a login token used. The conditional update makes two concurrent redemptions yield one winner. */
export async function consumeLoginToken(db: Db, opts: { tokenHash: string; now: Date }): Promise<ConsumeLoginResult> {
  const won = await db.loginToken.updateMany({
    where: { tokenHash: opts.tokenHash, usedAt: null, expiresAt: { gt: opts.now } },
    data: { usedAt: opts.now },
  });
  const row = await db.loginToken.findUnique({
    where: { tokenHash: opts.tokenHash },
    select: { userId: true, usedAt: true, expiresAt: true },
  });
  if (!row) return { status: 'unknown' };
  if (won.count === 1) return { status: 'ok', userId: row.userId };
  if (row.usedAt !== null) return { status: 'used' };
  return { status: 'expired' };
}

export async function insertWebSession(
  db: Db,
  opts: { userId: string; tokenHash: string; csrfToken: string; expiresAt: Date; lastSeenAt?: Date },
): Promise<{ id: string }> {
  return db.webSession.create({ data: { id: randomUUID(), ...opts }, select: { id: true } });
}

export interface WebSessionDto {
  id: string;
  csrfToken: string;
  expiresAt: Date;
  revokedAt: Date | null;
  lastSeenAt: Date;
  user: DashboardUserDto;
}

export async function findWebSessionByHash(db: Db, tokenHash: string): Promise<WebSessionDto | null> {
  return db.webSession.findUnique({
    where: { tokenHash },
    select: { id: true, csrfToken: true, expiresAt: true, revokedAt: true, lastSeenAt: true, user: { select: userSelect } },
  });
}

/** The same session by id (a live stream re-checks the session it was opened with). */
export async function findWebSessionById(db: Db, id: string): Promise<WebSessionDto | null> {
  return db.webSession.findUnique({
    where: { id },
    select: { id: true, csrfToken: true, expiresAt: true, revokedAt: true, lastSeenAt: true, user: { select: userSelect } },
  });
}

/** Records a request of the session, unless one was recorded since `unlessAfter`. */
export async function touchWebSession(db: Db, opts: { id: string; now: Date; unlessAfter: Date }): Promise<void> {
  await db.webSession.updateMany({ where: { id: opts.id, lastSeenAt: { lt: opts.unlessAfter } }, data: { lastSeenAt: opts.now } });
}

export async function revokeWebSession(db: Db, opts: { id: string; now: Date }): Promise<void> {
  await db.webSession.updateMany({ where: { id: opts.id, revokedAt: null }, data: { revokedAt: opts.now } });
}

export interface AgentTokenDto {
  id: string;
  nodeId: string;
  label: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export async function listAgentTokens(db: Db, opts: { includeRevoked?: boolean } = {}): Promise<AgentTokenDto[]> {
  return db.agentToken.findMany({
    where: opts.includeRevoked ? {} : { revokedAt: null },
    select: { id: true, nodeId: true, label: true, createdAt: true, lastUsedAt: true, revokedAt: true },
    orderBy: { createdAt: 'asc' },
  });
}

export async function findAgentToken(db: Db, id: string): Promise<AgentTokenDto | null> {
  return db.agentToken.findUnique({
    where: { id },
    select: { id: true, nodeId: true, label: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  });
}
