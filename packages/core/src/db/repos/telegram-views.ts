import { attachCommand, contextPercent, type CurrentActivity, handoffOf, type MessageStatus, type SessionState } from '../../domain/index.ts';
import type { Db } from '../client.ts';
import type { Executor } from '../../protocol/messages.ts';

/**
 * What the Telegram bot shows about nodes and sessions: read-only, explicit selects. Every change to a
 * session goes through core's session services, never through here.
 */
export const OPEN_SESSION_STATES = ['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork', 'AwaitingRecovery', 'Closing'] as const;

const sessionSelect = {
  id: true,
  nodeId: true,
  executor: true,
  folder: true,
  nativeSessionId: true,
  state: true,
  version: true,
  title: true,
  firstPrompt: true,
  lifetimeDeadline: true,
  lifetimeExpired: true,
  lastActivityAt: true,
  nativeLastActivity: true,
  usage: true,
  createdAt: true,
  archivedAt: true,
  nativeGoneAt: true,
  permissionMode: true,
  model: true,
  activity: true,
  activityAt: true,
  contextUsed: true,
  contextWindow: true,
  compactions: true,
  identity: true,
  handoff: true,
  deskPid: true,
  deskCommand: true,
  deskInTmux: true,
  worktreeBranch: true,
  worktreeRemovedAt: true,
} as const;

type Row = {
  activity: unknown;
  contextUsed: number | null;
  contextWindow: number | null;
  compactions: number;
  identity: unknown;
  handoff: string;
  deskPid: number | null;
  deskCommand: string | null;
  deskInTmux: boolean;
  state: string;
} & Record<string, unknown>;

/** The stored row as the bot reads it: the activity in the domain's shape, the context in one object. */
function toView(row: Row): SessionView {
  const { activity, contextUsed, contextWindow, compactions, identity, handoff, deskPid, deskCommand, deskInTmux, ...rest } = row;
  const h = handoffOf(handoff);
  const a = activity as Partial<CurrentActivity> | null;
  return {
    ...(rest as unknown as Omit<SessionView, 'activity' | 'context' | 'desk' | 'attachCommand'>),
    activity:
      a && typeof a === 'object' && typeof a.kind === 'string' && typeof a.at === 'string' && typeof a.steps === 'number' ? (a as CurrentActivity) : null,
    context:
      contextUsed === null ? null : { usedTokens: contextUsed, windowTokens: contextWindow, percent: contextPercent(contextUsed, contextWindow), compactions },
    desk: h === 'none' || h === 'adopted' ? null : { handoff: h, pid: deskPid, command: deskCommand, inTmux: deskInTmux },
    attachCommand: attachCommand({ state: row.state, identity }),
  };
}

export interface SessionView {
  id: string;
  nodeId: string;
  executor: Executor;
  folder: string;
  nativeSessionId: string | null;
  state: SessionState;
  version: number;
  title: string | null;
  firstPrompt: string | null;
  lifetimeDeadline: Date | null;
  lifetimeExpired: boolean;
  lastActivityAt: Date | null;
  nativeLastActivity: Date | null;
  usage: unknown;
  createdAt: Date;
  archivedAt: Date | null;
  /** Discovery found the CLI's own journal deleted on its computer. */
  nativeGoneAt: Date | null;
  /** As stored (read it with `permissionModeOf`); model null = the CLI's own default. */
  permissionMode: string;
  model: string | null;
  /** What the CLI did last, from its journal (shown while a turn runs) and when that changed. */
  activity: CurrentActivity | null;
  activityAt: Date | null;
  /** Context-window use as the journal states it; null before the first report. */
  context: { usedTokens: number; windowTokens: number | null; percent: number | null; compactions: number } | null;
  /** The process outside Bria that holds the native session (domain/handoff.ts), or null. */
  desk: { handoff: 'desk' | 'taking_over' | 'adopting'; pid: number | null; command: string | null; inTmux: boolean } | null;
  /** `tmux -L … attach -t …`: continue at the computer while Bria runs the CLI. */
  attachCommand: string | null;
  /** The session's own git worktree's branch (docs/worktrees.md), and when Finish or Close removed it. */
  worktreeBranch?: string | null;
  worktreeRemovedAt?: Date | null;
}

/** `missingExecutors`: CLIs the node's agent could not run (not offered for new sessions). */
export interface NodeView {
  id: string;
  name: string;
  online: boolean;
  enabledExecutors: Executor[];
  missingExecutors: Executor[];
  openSessions: number;
  claudePermissionMode: string;
  codexPermissionMode: string;
  unavailableModes: string[];
}

export async function listNodeViews(db: Db): Promise<NodeView[]> {
  const nodes = await db.node.findMany({
    where: { removedAt: null },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: {
      id: true,
      name: true,
      online: true,
      enabledExecutors: true,
      missingExecutors: true,
      claudePermissionMode: true,
      codexPermissionMode: true,
      unavailableModes: true,
    },
  });
  const counts = await db.session.groupBy({ by: ['nodeId'], where: { state: { in: [...OPEN_SESSION_STATES] } }, _count: { _all: true } });
  const byNode = new Map(counts.map((c) => [c.nodeId, c._count._all]));
  return nodes.map((n) => ({
    ...n,
    enabledExecutors: n.enabledExecutors as Executor[],
    missingExecutors: n.missingExecutors as Executor[],
    openSessions: byNode.get(n.id) ?? 0,
  }));
}

export async function getNodeView(db: Db, nodeId: string): Promise<NodeView | null> {
  return (await listNodeViews(db)).find((n) => n.id === nodeId) ?? null;
}

export async function getSessionView(db: Db, id: string): Promise<SessionView | null> {
  const row = await db.session.findUnique({ where: { id }, select: sessionSelect });
  return row ? toView(row as Row) : null;
}

export async function listOpenSessionViews(db: Db, nodeId: string): Promise<SessionView[]> {
  const rows = await db.session.findMany({
    where: { nodeId, state: { in: [...OPEN_SESSION_STATES] } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: sessionSelect,
    take: 30,
  });
  return rows.map((r) => toView(r as Row));
}

export async function listArchived(
  db: Db,
  o: { nodeId: string; page: number; pageSize: number; executor?: Executor; folder?: string },
): Promise<{ rows: SessionView[]; more: boolean }> {
  const rows = (
    await db.session.findMany({
      where: { nodeId: o.nodeId, state: 'Archived', ...(o.executor ? { executor: o.executor } : {}), ...(o.folder ? { folder: o.folder } : {}) },
      orderBy: [{ nativeLastActivity: { sort: 'desc', nulls: 'last' } }, { archivedAt: { sort: 'desc', nulls: 'last' } }, { id: 'desc' }],
      skip: o.page * o.pageSize,
      take: o.pageSize + 1,
      select: sessionSelect,
    })
  ).map((r) => toView(r as Row));
  return { rows: rows.slice(0, o.pageSize), more: rows.length > o.pageSize };
}

/** Folders of this node's sessions, most recent first (the /new folder buttons). */
export async function recentFolders(db: Db, nodeId: string, executor: Executor, limit = 6): Promise<string[]> {
  const rows = await db.session.findMany({ where: { nodeId, executor }, orderBy: { createdAt: 'desc' }, select: { folder: true }, take: 50 });
  return [...new Set(rows.map((r) => r.folder))].slice(0, limit);
}

/**
 * Whether a closed session was closed because its lifetime ended. Archiving clears the session's
 * lifetime fields, so the transition evidence says it: the latest of lifetime_expired /
 * close_requested / resume_requested is the lifetime's.
 */
export async function closedByLifetime(db: Db, sessionId: string): Promise<boolean> {
  const last = await db.sessionEvidence.findFirst({
    where: { sessionId, event: { in: ['lifetime_expired', 'close_requested', 'resume_requested'] } },
    orderBy: { id: 'desc' },
    select: { event: true },
  });
  return last?.event === 'lifetime_expired';
}

export async function queueLength(db: Db, sessionId: string): Promise<number> {
  return db.message.count({ where: { sessionId, status: { in: ['pending', 'leased'] } } });
}

export async function readSettingsView(db: Db): Promise<{ lifetimeHours: number | null; resumeRecommendations: boolean; allowedTelegramUsers: bigint[] }> {
  const row = await db.settings.findUnique({ where: { id: 1 }, select: { lifetimeHours: true, resumeRecommendations: true, allowedTelegramUsers: true } });
  return row ?? { lifetimeHours: 12, resumeRecommendations: false, allowedTelegramUsers: [] };
}

/** The newest transition record of a session (0 without one): a mark to compare later records with. */
export async function lastEvidenceId(db: Db, sessionId: string): Promise<bigint> {
  const row = await db.sessionEvidence.findFirst({ where: { sessionId }, orderBy: { id: 'desc' }, select: { id: true } });
  return row?.id ?? 0n;
}

/** Whether a resume of this session was asked for after the mark (its `resume_requested` record). */
export async function resumeAskedSince(db: Db, sessionId: string, mark: bigint): Promise<boolean> {
  return (await db.sessionEvidence.count({ where: { sessionId, event: 'resume_requested', id: { gt: mark } } })) > 0;
}

/**
 * Where message `seq` stands: how many messages of its session are still ahead of it (waiting or with
 * the CLI), and the open request of the CLI that holds the queue, if one is open (the oldest).
 */
export async function queuePosition(
  db: Db,
  o: { sessionId: string; seq: number },
): Promise<{ ahead: number; openPrompt: { kind: string; toolName: string } | null }> {
  const [ahead, session, prompt] = await Promise.all([
    db.message.count({ where: { sessionId: o.sessionId, seq: { lt: o.seq }, status: { in: ['pending', 'leased', 'accepted'] } } }),
    db.session.findUnique({ where: { id: o.sessionId }, select: { openPrompts: true } }),
    db.permissionPrompt.findFirst({
      where: { sessionId: o.sessionId, resolvedAt: null },
      orderBy: { receivedAt: 'asc' },
      select: { kind: true, toolName: true },
    }),
  ]);
  return { ahead, openPrompt: session && session.openPrompts > 0 ? prompt : null };
}

/** The queued message a Telegram message became (its `sourceKey`, `tg:<chat>:<message id>`), if any. */
export async function messageBySourceKey(db: Db, sourceKey: string): Promise<{ id: string; sessionId: string; seq: number; status: MessageStatus } | null> {
  return db.message.findUnique({ where: { sourceKey }, select: { id: true, sessionId: true, seq: true, status: true } });
}
