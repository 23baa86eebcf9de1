import { randomUUID } from 'node:crypto';
import type { Db } from '../client.ts';
import { generateAgentToken, hashToken } from '../agent-tokens.ts';

export interface NodeDto {
  id: string;
  name: string;
  hostname: string | null;
  isLocal: boolean;
  enabledExecutors: ('claude' | 'codex')[];
  online: boolean;
  lastSeenAt: Date | null;
  connectedAt: Date | null;
  agentVersion: string | null;
  openSessions: number;
  claudePermissionMode: string;
  codexPermissionMode: string;
  unavailableModes: string[];
  /** The optional commands and features of the agent's last hello. */
  agentCapabilities: string[];
  /** CLIs the agent's last hello said it cannot run (meaningful once `agentVersion` is set). */
  missingExecutors: ('claude' | 'codex')[];
  /** `<executor>:<version>` of the CLIs the agent's last hello reported runnable. */
  executorVersions: string[];
}

const nodeSelect = {
  id: true,
  name: true,
  hostname: true,
  isLocal: true,
  enabledExecutors: true,
  online: true,
  lastSeenAt: true,
  connectedAt: true,
  agentVersion: true,
  claudePermissionMode: true,
  codexPermissionMode: true,
  unavailableModes: true,
  agentCapabilities: true,
  missingExecutors: true,
  executorVersions: true,
} as const;

export async function listNodes(db: Db): Promise<NodeDto[]> {
  const nodes = await db.node.findMany({ where: { removedAt: null }, select: nodeSelect, orderBy: [{ isLocal: 'desc' }, { createdAt: 'asc' }] });
  const open = await db.session.groupBy({
    by: ['nodeId'],
    where: { state: { notIn: ['Archived', 'ResumeFailed'] } },
    _count: { _all: true },
  });
  const counts = new Map(open.map((o) => [o.nodeId, o._count._all]));
  return nodes.map((n) => ({ ...n, openSessions: counts.get(n.id) ?? 0 }));
}

/** A computer's name and removal time by id, removed ones included; undefined for an id no computer has. */
export async function findNodeAnyState(db: Db, nodeId: string): Promise<{ id: string; name: string; removedAt: Date | null } | undefined> {
  return (await db.node.findUnique({ where: { id: nodeId }, select: { id: true, name: true, removedAt: true } })) ?? undefined;
}

/** Creates a node and its first agent token. The token is returned once and never stored. */
export async function createNodeWithToken(db: Db, opts: { name: string; isLocal?: boolean; label?: string }): Promise<{ nodeId: string; token: string }> {
  const nodeId = randomUUID();
  const token = generateAgentToken();
  await db.$transaction([
    db.node.create({ data: { id: nodeId, name: opts.name, isLocal: opts.isLocal ?? false } }),
    db.agentToken.create({ data: { id: randomUUID(), nodeId, tokenHash: hashToken(token), label: opts.label ?? null } }),
  ]);
  return { nodeId, token };
}

/** A new token for an existing node (e.g. the local agent lost its credential file). */
export async function issueAgentToken(db: Db, nodeId: string, label?: string): Promise<{ tokenId: string; token: string }> {
  const token = generateAgentToken();
  const tokenId = randomUUID();
  await db.agentToken.create({ data: { id: tokenId, nodeId, tokenHash: hashToken(token), label: label ?? null } });
  return { tokenId, token };
}

export async function findNodeByToken(db: Db, token: string): Promise<{ nodeId: string; tokenId: string; name: string; revoked: boolean } | undefined> {
  const row = await db.agentToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, nodeId: true, revokedAt: true, node: { select: { name: true } } },
  });
  if (!row) return undefined;
  return { nodeId: row.nodeId, tokenId: row.id, name: row.node.name, revoked: row.revokedAt !== null };
}

/**
 * Of `tokenIds`, those that no longer admit an agent: revoked, or gone (the node was deleted).
 * One indexed read, whatever the number of sockets (the hub asks on every heartbeat).
 */
export async function deadTokenIds(db: Db, tokenIds: readonly string[]): Promise<string[]> {
  if (tokenIds.length === 0) return [];
  const live = await db.agentToken.findMany({ where: { id: { in: [...tokenIds] }, revokedAt: null }, select: { id: true } });
  const alive = new Set(live.map((t) => t.id));
  return tokenIds.filter((id) => !alive.has(id));
}

export async function revokeAgentToken(db: Db, tokenId: string): Promise<void> {
  await db.agentToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
  await db.$executeRaw`select pg_notify('bria_token_revoked', ${tokenId})`;
}

/**
 * One statement (both updates in one CTE, atomic as a statement), not a Prisma batch transaction:
 * under a burst of 1,000 agents connecting at once, each hello waited for a pool connection to
 * START a transaction and some hit Prisma's transaction-start timeout ("Unable to start a
 * transaction in the given time"). A single statement just waits its turn in the pool.
 */
/** `capabilities`: the optional commands the agent's hello listed (none from an older agent); replaced on every hello. */
export async function markNodeOnline(
  db: Db,
  nodeId: string,
  info: {
    agentVersion: string;
    hostname: string;
    instanceId: string;
    tokenId: string;
    capabilities?: string[];
    missingExecutors?: ('claude' | 'codex')[];
    unavailableModes?: string[];
    executorVersions?: string[];
  },
  now: Date,
): Promise<{ lastEventSeq: bigint; name: string }> {
  const rows = await db.$queryRaw<{ lastEventSeq: bigint; name: string }[]>`
    with n as (
      update "Node" set online = true, "connectedAt" = ${now}, "lastSeenAt" = ${now}, "agentVersion" = ${info.agentVersion},
        hostname = ${info.hostname}, "agentInstanceId" = ${info.instanceId}, "agentCapabilities" = ${info.capabilities ?? []}::text[],
        "missingExecutors" = ${info.missingExecutors ?? []}::"Executor"[], "unavailableModes" = ${info.unavailableModes ?? []}::text[],
        "executorVersions" = ${info.executorVersions ?? []}::text[]
      where id = ${nodeId}::uuid
      returning "lastEventSeq", name),
    t as (update "AgentToken" set "lastUsedAt" = ${now} where id = ${info.tokenId}::uuid returning id)
    select n."lastEventSeq", n.name, (select count(*) from t)::int as tokens from n`;
  const node = rows[0];
  if (!node) throw new Error('node not found');
  return { lastEventSeq: BigInt(node.lastEventSeq), name: node.name };
}

export async function touchNodes(db: Db, nodeIds: string[], now: Date): Promise<void> {
  await db.node.updateMany({ where: { id: { in: nodeIds } }, data: { lastSeenAt: now } });
}

export async function markNodeOffline(db: Db, nodeId: string, now: Date): Promise<void> {
  await db.node.update({ where: { id: nodeId }, data: { online: false, disconnectedAt: now }, select: { id: true } });
}

/** Nodes marked online whose last sign of life is older than `staleBefore` (e.g. their hub crashed). */
export async function markStaleNodesOffline(db: Db, staleBefore: Date, now: Date, exceptIds: string[] = []): Promise<number> {
  const r = await db.node.updateMany({
    where: { online: true, OR: [{ lastSeenAt: null }, { lastSeenAt: { lt: staleBefore } }], id: { notIn: exceptIds } },
    data: { online: false, disconnectedAt: now },
  });
  return r.count;
}
