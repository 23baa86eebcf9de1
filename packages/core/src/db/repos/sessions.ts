import type { Db } from '../client.ts';
import type { Prisma } from '../generated/client.ts';
import type { SessionState } from '../../domain/index.ts';

/** A Prisma interactive-transaction client; repositories accept either it or the pool client. */
export type Tx = Prisma.TransactionClient;
export type DbOrTx = Db | Tx;
export type Executor = 'claude' | 'codex';

export const sessionSelect = {
  id: true, nodeId: true, executor: true, folder: true, nativeSessionId: true, state: true, version: true,
  resumeState: true, launchSource: true, permissionMode: true, title: true, firstPrompt: true, createdAt: true,
  lifetimeStartedAt: true, lifetimeDeadline: true, lifetimeExpired: true, archivedAt: true, observerGeneration: true,
  identity: true, usage: true, journalPath: true, nativeLastActivity: true, exitVerified: true, originChatId: true,
  pendingFinalEventId: true, finalSaveAttempts: true, deferredEventIds: true, archiveSortAt: true, userTurns: true,
} as const satisfies Prisma.SessionSelect;
export type SessionRow = Prisma.SessionGetPayload<{ select: typeof sessionSelect }>;

export const OPEN_STATES: SessionState[] = ['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork', 'AwaitingRecovery', 'Closing'];

/** Loads a session and holds its row lock until the transaction ends: every session change runs under it. */
export async function lockSession(tx: Tx, id: string): Promise<SessionRow | null> {
  const locked = await tx.$queryRaw<{ id: string }[]>`select id from "Session" where id = ${id}::uuid for update`;
  if (locked.length === 0) return null;
  return tx.session.findUnique({ where: { id }, select: sessionSelect });
}

export async function getSessionRow(db: DbOrTx, id: string): Promise<SessionRow | null> {
  return db.session.findUnique({ where: { id }, select: sessionSelect });
}

export async function insertSession(tx: Tx, data: Prisma.SessionUncheckedCreateInput): Promise<SessionRow> {
  return tx.session.create({ data, select: sessionSelect });
}

/** Optimistic write: false means another writer bumped `version` first (reload and retry). */
export async function writeSession(db: DbOrTx, id: string, version: number, data: Prisma.SessionUncheckedUpdateManyInput): Promise<boolean> {
  const r = await db.session.updateMany({ where: { id, version }, data: { ...data, version: version + 1 } });
  return r.count === 1;
}

/** Fields that are not part of the state machine (identity, usage, pending final). No version bump. */
export async function patchSession(db: DbOrTx, id: string, data: Prisma.SessionUncheckedUpdateInput): Promise<void> {
  await db.session.update({ where: { id }, data, select: { id: true } });
}

export async function listOpenSessionRows(db: DbOrTx, nodeId: string): Promise<SessionRow[]> {
  return db.session.findMany({ where: { nodeId, state: { in: OPEN_STATES } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: sessionSelect });
}

export async function sessionIdsInStates(db: DbOrTx, nodeId: string, states: SessionState[]): Promise<string[]> {
  const rows = await db.session.findMany({ where: { nodeId, state: { in: states } }, select: { id: true } });
  return rows.map((r) => r.id);
}

export interface ArchiveQuery { nodeId: string; search?: string; executor?: Executor; cursor?: string; limit: number }

/** Keyset pagination over (archiveSortAt desc, id desc); the cursor is the last row's id. */
export async function listArchiveRows(db: DbOrTx, q: ArchiveQuery): Promise<SessionRow[]> {
  const where: Prisma.SessionWhereInput = { nodeId: q.nodeId, state: 'Archived', ...(q.executor ? { executor: q.executor } : {}) };
  if (q.search) {
    const s = q.search;
    where.OR = [
      { title: { contains: s, mode: 'insensitive' } },
      { folder: { contains: s, mode: 'insensitive' } },
      { firstPrompt: { contains: s, mode: 'insensitive' } },
      { nativeSessionId: { startsWith: s } },
    ];
  }
  if (q.cursor) {
    const c = await db.session.findUnique({ where: { id: q.cursor }, select: { archiveSortAt: true, id: true } });
    if (c?.archiveSortAt) {
      where.AND = [{ OR: [{ archiveSortAt: { lt: c.archiveSortAt } }, { archiveSortAt: c.archiveSortAt, id: { lt: c.id } }] }];
    }
  }
  return db.session.findMany({ where, orderBy: [{ archiveSortAt: 'desc' }, { id: 'desc' }], take: q.limit, select: sessionSelect });
}

export async function findArchivedMatches(db: DbOrTx, q: { nodeId: string; executor: Executor; folder: string; limit: number }): Promise<SessionRow[]> {
  return db.session.findMany({
    where: { nodeId: q.nodeId, executor: q.executor, folder: q.folder, state: 'Archived', nativeSessionId: { not: null } },
    orderBy: [{ archiveSortAt: 'desc' }, { id: 'desc' }], take: q.limit, select: sessionSelect,
  });
}

export async function getArchiveCopy(db: DbOrTx, sessionId: string): Promise<{ path: string; sizeBytes: bigint; sha256: string } | null> {
  return db.archiveCopy.findUnique({ where: { sessionId }, select: { path: true, sizeBytes: true, sha256: true } });
}

export async function upsertArchiveCopy(tx: Tx, sessionId: string, copy: { path: string; sizeBytes: number; sha256: string }): Promise<void> {
  const data = { path: copy.path, sizeBytes: BigInt(copy.sizeBytes), sha256: copy.sha256 };
  await tx.archiveCopy.upsert({ where: { sessionId }, create: { sessionId, ...data }, update: data });
}

/** Chats that should hear about a node's sessions, with the session each has active on that node. */
export async function chatsForNode(db: DbOrTx, nodeId: string): Promise<{ chatId: bigint; activeSessionId: string | null }[]> {
  const chats = await db.telegramChat.findMany({ select: { chatId: true, nodeStates: { where: { nodeId }, select: { activeSessionId: true } } }, take: 50 });
  return chats.map((c) => ({ chatId: c.chatId, activeSessionId: c.nodeStates[0]?.activeSessionId ?? null }));
}

export async function getActiveSessionId(db: DbOrTx, chatId: bigint, nodeId: string): Promise<string | null> {
  const row = await db.chatNodeState.findUnique({ where: { chatId_nodeId: { chatId, nodeId } }, select: { activeSessionId: true } });
  return row?.activeSessionId ?? null;
}

export async function setActiveSessionId(db: DbOrTx, chatId: bigint, nodeId: string, sessionId: string | null): Promise<void> {
  await db.chatNodeState.upsert({
    where: { chatId_nodeId: { chatId, nodeId } },
    create: { chatId, nodeId, activeSessionId: sessionId },
    update: { activeSessionId: sessionId },
  });
}

/** Stores a session command in the caller's transaction; the NOTIFY reaches the hub on commit. */
export async function insertSessionCommand(tx: Tx, c: { id: string; nodeId: string; sessionId: string; type: string; payload: Record<string, unknown> }): Promise<void> {
  await tx.agentCommand.create({ data: { id: c.id, nodeId: c.nodeId, sessionId: c.sessionId, type: c.type, payload: c.payload as object }, select: { id: true } });
  await tx.$executeRaw`select pg_notify('bria_agent_commands', ${c.nodeId})`;
}

export interface SessionGateRow { id: string; nodeId: string; state: SessionState; version: number; observerGeneration: number; nativeSessionId: string | null; lifetimeDeadline: Date | null; lifetimeExpired: boolean; exitVerified: boolean }

/** The hot path of message acceptance: one round trip that locks the row and returns what the gate needs. */
export async function lockSessionGate(tx: Tx, id: string): Promise<SessionGateRow | null> {
  const rows = await tx.$queryRaw<SessionGateRow[]>`
    select id, "nodeId", state::text as state, version, "observerGeneration", "nativeSessionId", "lifetimeDeadline", "lifetimeExpired", "exitVerified"
    from "Session" where id = ${id}::uuid for update`;
  return rows[0] ?? null;
}
