import type { MessageStatus } from '../../domain/index.ts';
import type { Executor } from '../../protocol/messages.ts';
import type { DbOrTx } from './sessions.ts';

/** Read models for the dashboard's session page; nothing here changes state. */

export interface ConversationMessageDto {
  id: string;
  seq: number;
  source: string;
  text: string;
  /** The text first sent, when the user edited the message while it was queued (issue 33). */
  originalText: string | null;
  finalText: string | null;
  status: MessageStatus;
  mainMessageId: string | null;
  outcomeDetail: string | null;
  createdAt: Date;
  acceptedAt: Date | null;
  outcomeAt: Date | null;
  attachmentCount: number;
}

/** The newest `limit` messages of a session with their texts and outcomes, oldest first. */
export async function listConversation(db: DbOrTx, sessionId: string, limit: number): Promise<{ items: ConversationMessageDto[]; total: number }> {
  const [rows, total] = await Promise.all([
    db.message.findMany({
      where: { sessionId },
      orderBy: { seq: 'desc' },
      take: limit,
      select: {
        id: true,
        seq: true,
        source: true,
        text: true,
        originalText: true,
        finalText: true,
        status: true,
        mainMessageId: true,
        outcomeDetail: true,
        createdAt: true,
        acceptedAt: true,
        outcomeAt: true,
        attachments: true,
      },
    }),
    db.message.count({ where: { sessionId } }),
  ]);
  const items = rows.reverse().map(({ attachments, ...m }) => ({ ...m, attachmentCount: Array.isArray(attachments) ? attachments.length : 0 }));
  return { items, total };
}

export interface UsagePointDto {
  at: Date;
  inputTokens: number | null;
  outputTokens: number | null;
  contextWindowUsed: number | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
/**
 * The whole prompt of a turn's last request as the chart shows it (≈ context in use): a report of
 * this version keeps cached tokens apart (issue 33), so they are added back; an older one had them
 * in `inputTokens` (Claude's cache writes) or not at all.
 */
function promptTokens(d: Record<string, unknown> | null): number | null {
  const input = num(d?.inputTokens);
  if (input === null || d?.cacheReadTokens === undefined) return input;
  return input + (num(d.cacheReadTokens) ?? 0) + (num(d.cacheWriteTokens) ?? 0);
}

/**
 * Usage reports of one session over time, from the stored agent events (the session row keeps
 * only the latest). Bounded to the newest `limit` reports; served by the (sessionId, type, id) index.
 */
export async function listUsageHistory(db: DbOrTx, q: { nodeId: string; sessionId: string; limit: number }): Promise<UsagePointDto[]> {
  const rows = await db.$queryRaw<{ receivedAt: Date; data: Record<string, unknown> | null }[]>`
    select "receivedAt", payload->'data' as data from "AgentEvent"
    where "sessionId" = ${q.sessionId}::uuid and type = 'usage' and "nodeId" = ${q.nodeId}::uuid
    order by id desc limit ${q.limit}`;
  return rows.reverse().map((r) => ({
    at: r.receivedAt,
    inputTokens: promptTokens(r.data),
    outputTokens: num(r.data?.outputTokens),
    contextWindowUsed: num(r.data?.contextWindowUsed),
  }));
}

/** Folders used on a node, most recent first (the new-session form offers them). */
export async function listRecentFolders(db: DbOrTx, q: { nodeId: string; executor?: Executor; limit: number }): Promise<string[]> {
  const rows = await db.session.groupBy({
    by: ['folder'],
    where: { nodeId: q.nodeId, ...(q.executor ? { executor: q.executor } : {}) },
    _max: { createdAt: true },
    orderBy: { _max: { createdAt: 'desc' } },
    take: q.limit,
  });
  return rows.map((r) => r.folder);
}

export interface NodeSummary {
  id: string;
  name: string;
  online: boolean;
  enabledExecutors: Executor[];
  missingExecutors: Executor[];
  /** Preselected permission modes and `<executor>:<mode>` ones that cannot start there. */
  claudePermissionMode: string;
  codexPermissionMode: string;
  unavailableModes: string[];
}

export async function getNodeSummary(db: DbOrTx, nodeId: string): Promise<NodeSummary | null> {
  return db.node.findUnique({
    where: { id: nodeId },
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
}
