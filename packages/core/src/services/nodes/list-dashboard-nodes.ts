import { listAgentTokens } from '../../db/repos/auth.ts';
import { listNodes } from '../../db/repos/nodes.ts';
import type { Db } from '../../db/client.ts';
import type { Executor, SessionPermissionMode } from '../../protocol/index.ts';
import { agentOutdated } from '../../domain/agent-version.ts';
import { cliVersionVerdict, storedCliVersion, VERIFIED_CLI_VERSIONS } from '../../domain/cli-versions.ts';
import { installedExecutors } from '../../domain/installed-executors.ts';
import { type RemoteAnswersOffReason, remoteAnswersOff } from '../../domain/remote-answers.ts';
import { nodeDefaultMode } from '../sessions/session-choices.ts';
import { type BundleRef, type HubCaRef, updateCommand } from './install-command.ts';

export interface DashboardNodeDto {
  id: string;
  name: string;
  hostname: string | null;
  isLocal: boolean;
  online: boolean;
  lastSeenAt: Date | null;
  agentVersion: string | null;
  /**
   * The node's agent (as its last hello said) is older than the bundle this server hands out
   * (domain `agentOutdated`); false when either version is unknown.
   */
  agentOutdated: boolean;
  /** For an outdated agent on another computer: the command that updates it there (`updateCommand`). */
  updateCommand: string | null;
  enabledExecutors: Executor[];
  /** The CLIs the agent reported it can run (`installedExecutors`); null until an agent has reported at all. */
  installedExecutors: Executor[] | null;
  /**
   * Each runnable CLI's version as the agent's last hello reported it, and whether this Bria was
   * verified with it (domain `cliVersionVerdict`); an unverified one still runs.
   */
  cliVersions: { executor: Executor; version: string; verified: boolean; verifiedVersions: string[] }[];
  openSessions: number;
  /** The permission mode preselected for new sessions, per executor; `<executor>:<mode>` that cannot start there. */
  defaultModes: { claude: SessionPermissionMode; codex: SessionPermissionMode };
  unavailableModes: string[];
  /** Why the agent's remote answers are off (its hooks channel could not be secured); null when on. */
  remoteAnswersOff: RemoteAnswersOffReason | null;
  tokens: { id: string; label: string | null; createdAt: Date; lastUsedAt: Date | null }[];
}

/**
 * Every node as the dashboard shows it, with its live (unrevoked) agent tokens. With the bundle the
 * hub serves (and the hub's public URL for the command), whether each agent is outdated.
 */
export async function listDashboardNodes(opts: {
  db: Db;
  bundle?: BundleRef | null;
  hubPublicUrl?: string;
  hubCa?: HubCaRef | null;
}): Promise<DashboardNodeDto[]> {
  const bundle = opts.bundle ?? null;
  const [nodes, tokens] = await Promise.all([listNodes(opts.db), listAgentTokens(opts.db)]);
  return nodes.map((n) => ({
    id: n.id,
    name: n.name,
    hostname: n.hostname,
    isLocal: n.isLocal,
    online: n.online,
    lastSeenAt: n.lastSeenAt,
    agentVersion: n.agentVersion,
    ...outdated(n, bundle, opts.hubPublicUrl, opts.hubCa ?? undefined),
    enabledExecutors: n.enabledExecutors,
    installedExecutors: installedExecutors(['claude', 'codex'] as const, n),
    cliVersions: cliVersions(n.executorVersions),
    openSessions: n.openSessions,
    defaultModes: { claude: nodeDefaultMode('claude', n), codex: nodeDefaultMode('codex', n) },
    unavailableModes: n.unavailableModes,
    remoteAnswersOff: remoteAnswersOff(n.agentCapabilities),
    tokens: tokens.filter((t) => t.nodeId === n.id).map(({ id, label, createdAt, lastUsedAt }) => ({ id, label, createdAt, lastUsedAt })),
  }));
}

function outdated(
  n: { isLocal: boolean; agentVersion: string | null },
  bundle: BundleRef | null,
  hubUrl: string | undefined,
  ca: HubCaRef | undefined,
): Pick<DashboardNodeDto, 'agentOutdated' | 'updateCommand'> {
  const old = agentOutdated(n.agentVersion, bundle?.version ?? null);
  // This computer's agent runs from the checkout (npm start): a restart updates it, not a download.
  const command = old && bundle && hubUrl && !n.isLocal ? updateCommand({ hubUrl, bundle, ...(ca ? { ca } : {}) }) : null;
  return { agentOutdated: old, updateCommand: command };
}

function cliVersions(stored: string[]): DashboardNodeDto['cliVersions'] {
  return (['claude', 'codex'] as const).flatMap((executor) => {
    const version = storedCliVersion(stored, executor);
    if (version === null) return [];
    const verdict = cliVersionVerdict(executor, version);
    return [{ executor, version, verified: verdict.kind === 'verified', verifiedVersions: [...VERIFIED_CLI_VERSIONS[executor]] }];
  });
}

/** Counts for the health endpoint. */
export async function countNodes(opts: { db: Db }): Promise<{ online: number; total: number }> {
  const nodes = await listNodes(opts.db);
  return { online: nodes.filter((n) => n.online).length, total: nodes.length };
}
