import { listAgentTokens } from '../../db/repos/auth.ts';
import { listNodes } from '../../db/repos/nodes.ts';
import type { Db } from '../../db/client.ts';
import type { Executor, SessionPermissionMode } from '../../protocol/index.ts';
import { nodeDefaultMode } from '../sessions/session-choices.ts';


export interface DashboardNodeDto {
  id: string;
  name: string;
  hostname: string | null;
  isLocal: boolean;
  online: boolean;
  lastSeenAt: Date | null;
  agentVersion: string | null;
  enabledExecutors: Executor[];
  openSessions: number;
  /** The permission mode preselected for new sessions, per executor; `<executor>:<mode>` that cannot start there. */
  defaultModes: { claude: SessionPermissionMode; codex: SessionPermissionMode };
  unavailableModes: string[];
  tokens: { id: string; label: string | null; createdAt: Date; lastUsedAt: Date | null }[];
}

/** Every node as the dashboard shows it, with its live (unrevoked) agent tokens. */
export async function listDashboardNodes(opts: { db: Db }): Promise<DashboardNodeDto[]> {
  const [nodes, tokens] = await Promise.all([listNodes(opts.db), listAgentTokens(opts.db)]);
  return nodes.map((n) => ({
    id: n.id,
    name: n.name,
    hostname: n.hostname,
    isLocal: n.isLocal,
    online: n.online,
    lastSeenAt: n.lastSeenAt,
    agentVersion: n.agentVersion,
    enabledExecutors: n.enabledExecutors,
    openSessions: n.openSessions,
    defaultModes: { claude: nodeDefaultMode('claude', n), codex: nodeDefaultMode('codex', n) },
    unavailableModes: n.unavailableModes,
    tokens: tokens.filter((t) => t.nodeId === n.id).map(({ id, label, createdAt, lastUsedAt }) => ({ id, label, createdAt, lastUsedAt })),
  }));
}

/** Counts for the health endpoint. */
export async function countNodes(opts: { db: Db }): Promise<{ online: number; total: number }> {
  const nodes = await listNodes(opts.db);
  return { online: nodes.filter((n) => n.online).length, total: nodes.length };
}
