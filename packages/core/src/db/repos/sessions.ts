import type { Db } from '../client.ts';
import { refuseOversizeCommand } from './agent-commands.ts';
import { Prisma } from '../generated/client.ts';

const { sql, join } = Prisma;
import { OPEN_STATES, type SessionState } from '../../domain/index.ts';
import type { Executor } from '../../protocol/messages.ts';

/** A Prisma interactive-transaction client; repositories accept either it or the pool client. */
export type Tx = Prisma.TransactionClient;
export type DbOrTx = Db | Tx;

export const sessionSelect = {
  id: true,
  nodeId: true,
  executor: true,
  folder: true,
  nativeSessionId: true,
  state: true,
  version: true,
  resumeState: true,
  launchSource: true,
  permissionMode: true,
  model: true,
  title: true,
  firstPrompt: true,
  createdAt: true,
  lifetimeStartedAt: true,
  lifetimeDeadline: true,
  lifetimeExpired: true,
  archivedAt: true,
  observerGeneration: true,
  identity: true,
  usage: true,
  journalPath: true,
  nativeLastActivity: true,
  exitVerified: true,
  originChatId: true,
  pendingFinalEventId: true,
  finalSaveAttempts: true,
  deferredEventIds: true,
  archiveSortAt: true,
  userTurns: true,
  nativeGoneAt: true,
  conversationMayExist: true,
  openPrompts: true,
  activity: true,
  activityAt: true,
  contextUsed: true,
  contextWindow: true,
  contextWindowSource: true,
  compactions: true,
  handoff: true,
  deskPid: true,
  deskStart: true,
  deskSince: true,
  deskCommand: true,
  deskInTmux: true,
  worktreePath: true,
  worktreeRepo: true,
  worktreeBranch: true,
  worktreeRemovedAt: true,
  gitBaseBranch: true,
  gitBaseCommit: true,
} as const satisfies Prisma.SessionSelect;
export type SessionRow = Prisma.SessionGetPayload<{ select: typeof sessionSelect }>;

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

/**
 * Open sessions, and closed records whose native CLI runs outside Bria right now (domain/handoff.ts):
 * a session begun by hand at the computer is live, never shown as archived while its process runs.
 */
const openOrAtDesk = {
  OR: [{ state: { in: [...OPEN_STATES] } }, { state: { in: ['Archived', 'ResumeFailed'] as SessionState[] }, handoff: { not: 'none' } }],
} satisfies Prisma.SessionWhereInput;

export async function listOpenSessionRows(db: DbOrTx, nodeId: string): Promise<SessionRow[]> {
  return db.session.findMany({ where: { nodeId, ...openOrAtDesk }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: sessionSelect });
}

/** An open session with its computer's name and whether that computer is connected. */
export type OpenSessionAcrossRow = SessionRow & { node: { name: string; online: boolean } };

/**
 * Open sessions of every computer that is not removed (a removed computer has none open: removal
 * refuses while it has), optionally of one computer or one executor. One query; callers order them.
 */
export async function listOpenSessionRowsAcross(db: DbOrTx, q: { nodeId?: string; executor?: Executor }): Promise<OpenSessionAcrossRow[]> {
  return db.session.findMany({
    where: { ...openOrAtDesk, node: { removedAt: null }, ...(q.nodeId ? { nodeId: q.nodeId } : {}), ...(q.executor ? { executor: q.executor } : {}) },
    select: { ...sessionSelect, node: { select: { name: true, online: true } } },
  });
}

export async function sessionIdsInStates(db: DbOrTx, nodeId: string, states: SessionState[]): Promise<string[]> {
  const rows = await db.session.findMany({ where: { nodeId, state: { in: states } }, select: { id: true } });
  return rows.map((r) => r.id);
}

export interface ArchiveQuery {
  nodeId?: string;
  search?: string;
  executor?: Executor;
  cursor?: string;
  limit: number;
}

/**
 * The words of a search as a prefix full-text query over `Message.search` ('simple' configuration):
 * every word must occur, each as a word or the start of one (`build` finds "building"). Letters and
 * digits only, so nothing the user types reaches `to_tsquery` as syntax; null when no word is left.
 */
export function searchQuery(words: string): string | null {
  const tokens = (words.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 8).map((t) => t.slice(0, 60));
  return tokens.length === 0 ? null : tokens.map((t) => `${t}:*`).join(' & ');
}

/**
 * Keyset pagination over (archiveSortAt desc, id desc); the cursor is the last row's id.
 * The cursor condition is one row-value comparison, `("archiveSortAt", id) < (cursor's)`, which the
 * indexes `Session([nodeId,] state, archiveSortAt desc, id desc)` answer as a single range scan that
 * stops after `limit` rows — an `a < x or (a = x and id < y)` form is not an index range, and its
 * cost grows with the pages already passed. The ids come from that scan, the rows from one lookup.
 * Rows without `archiveSortAt` (none are written so; kept for safety) sort first, as in
 * Postgres' `desc` order. Without `nodeId`, the archive of every computer.
 * A search matches the title, folder or first prompt (substring), a native id prefix, or any stored
 * prompt or final of the session (full text, `searchQuery`, through the GIN index on `Message.search`).
 */
export async function listArchiveRows(db: DbOrTx, q: ArchiveQuery): Promise<SessionRow[]> {
  const conds: Prisma.Sql[] = [sql`s.state = 'Archived'`];
  if (q.nodeId) conds.push(sql`s."nodeId" = ${q.nodeId}::uuid`);
  if (q.executor) conds.push(sql`s.executor::text = ${q.executor}`);
  if (q.search) {
    const like = `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const prefix = `${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const fts = searchQuery(q.search);
    const inText = fts ? sql` or s.id in (select m."sessionId" from "Message" m where m.search @@ to_tsquery('simple', ${fts}))` : sql``;
    conds.push(sql`(s.title ilike ${like} or s.folder ilike ${like} or s."firstPrompt" ilike ${like} or s."nativeSessionId" like ${prefix}${inText})`);
  }
  if (q.cursor) {
    const c = await db.session.findUnique({ where: { id: q.cursor }, select: { archiveSortAt: true, id: true } });
    if (c?.archiveSortAt) conds.push(sql`(s."archiveSortAt", s.id) < (${c.archiveSortAt}::timestamptz, ${c.id}::uuid)`);
    else if (c) conds.push(sql`(s."archiveSortAt" is not null or s.id < ${c.id}::uuid)`);
  }
  const ids = await db.$queryRaw<{ id: string }[]>`
    select s.id from "Session" s where ${join(conds, ' and ')}
    order by s."archiveSortAt" desc, s.id desc limit ${q.limit}`;
  if (ids.length === 0) return [];
  const rows = await db.session.findMany({ where: { id: { in: ids.map((r) => r.id) } }, select: sessionSelect });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((r) => byId.get(r.id)).filter((r): r is SessionRow => r !== undefined);
}

/** Marks around a matched word in a snippet (control characters: never in stored text the user sees). */
export const MATCH_START = '\u0002';
export const MATCH_END = '\u0003';

/**
 * For each session, the newest of its messages that matches the search, as a short snippet with the
 * matched words between MATCH_START and MATCH_END (`ts_headline`), from the final if it matches there.
 */
export async function archiveSnippets(db: DbOrTx, sessionIds: string[], words: string): Promise<Map<string, { messageId: string; snippet: string }>> {
  const fts = searchQuery(words);
  if (!fts || sessionIds.length === 0) return new Map();
  const opts = `StartSel=${MATCH_START}, StopSel=${MATCH_END}, MaxWords=18, MinWords=6, MaxFragments=1, FragmentDelimiter=" … "`;
  const rows = await db.$queryRaw<{ sessionId: string; id: string; snippet: string }[]>`
    select distinct on (m."sessionId") m."sessionId", m.id,
      ts_headline('simple', case when to_tsvector('simple', coalesce(m."finalText", '')) @@ q.q then m."finalText" else m.text end, q.q, ${opts}) as snippet
    from "Message" m, (select to_tsquery('simple', ${fts}) as q) q
    where m."sessionId" = any(${sessionIds}::uuid[]) and m.search @@ q.q
    order by m."sessionId", m.seq desc`;
  return new Map(rows.map((r) => [r.sessionId, { messageId: r.id, snippet: r.snippet.slice(0, 600) }]));
}

export async function findArchivedMatches(db: DbOrTx, q: { nodeId: string; executor: Executor; folder: string; limit: number }): Promise<SessionRow[]> {
  return db.session.findMany({
    where: { nodeId: q.nodeId, executor: q.executor, folder: q.folder, state: 'Archived', nativeSessionId: { not: null } },
    orderBy: [{ archiveSortAt: 'desc' }, { id: 'desc' }],
    take: q.limit,
    select: sessionSelect,
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

/**
 * The chats a session lives in: the chat it was created from, every chat where it is its node's
 * active session, and every chat whose card shows it. A session no chat has touched (created on the
 * dashboard, found by discovery and resumed there) lives in every chat that follows its node.
 */
export async function chatsForSession(
  db: DbOrTx,
  s: { id: string; nodeId: string; originChatId: bigint | null },
): Promise<{ chatId: bigint; activeSessionId: string | null }[]> {
  const chats = await db.telegramChat.findMany({
    select: { chatId: true, cardSessionId: true, nodeStates: { where: { nodeId: s.nodeId }, select: { activeSessionId: true } } },
    take: 50,
  });
  const all = chats.map((c) => ({ chatId: c.chatId, activeSessionId: c.nodeStates[0]?.activeSessionId ?? null, card: c.cardSessionId }));
  const own = all.filter((c) => c.chatId === s.originChatId || c.activeSessionId === s.id || c.card === s.id);
  return (own.length > 0 ? own : all).map(({ chatId, activeSessionId }) => ({ chatId, activeSessionId }));
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
export async function insertSessionCommand(
  tx: Tx,
  c: { id: string; nodeId: string; sessionId: string; type: string; payload: Record<string, unknown> },
): Promise<void> {
  refuseOversizeCommand(c.type, c.payload);
  await tx.agentCommand.create({
    data: { id: c.id, nodeId: c.nodeId, sessionId: c.sessionId, type: c.type, payload: c.payload as object },
    select: { id: true },
  });
  await tx.$executeRaw`select pg_notify('bria_agent_commands', ${c.nodeId})`;
}

export interface SessionGateRow {
  id: string;
  nodeId: string;
  state: SessionState;
  version: number;
  observerGeneration: number;
  nativeSessionId: string | null;
  lifetimeDeadline: Date | null;
  lifetimeExpired: boolean;
  exitVerified: boolean;
}

/** The hot path of message acceptance: one round trip, no lock, returning what the gate needs (see `appendMessageIfUnchanged`). */
export async function readSessionGate(db: DbOrTx, id: string): Promise<SessionGateRow | null> {
  const rows = await db.$queryRaw<SessionGateRow[]>`
    select id, "nodeId", state::text as state, version, "observerGeneration", "nativeSessionId", "lifetimeDeadline", "lifetimeExpired", "exitVerified"
    from "Session" where id = ${id}::uuid`;
  return rows[0] ?? null;
}

/** The CLI a session runs; fixed for the session's whole life. */
export async function readSessionExecutor(db: DbOrTx, id: string): Promise<'claude' | 'codex' | null> {
  const row = await db.session.findUnique({ where: { id }, select: { executor: true } });
  return row?.executor ?? null;
}
