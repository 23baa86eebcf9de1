import { z } from 'zod';
import { zExecutor, zId, zIsoDate, zIsoDateOrNull } from '../zod-shared.ts';
import { REMOTE_ANSWERS_OFF_REASONS } from '../../../domain/remote-answers.ts';

export const ZNodeView = z.object({
  id: zId,
  name: z.string(),
  hostname: z.string().nullable(),
  isLocal: z.boolean(),
  online: z.boolean(),
  lastSeenAt: zIsoDateOrNull,
  agentVersion: z.string().nullable(),
  /** Older than the agent bundle this server hands out (the dashboard may show `updateCommand`). */
  agentOutdated: z.boolean(),
  updateCommand: z.string().nullable(),
  enabledExecutors: z.array(zExecutor),
  /** Null until the computer's agent has reported which CLIs it can run. */
  installedExecutors: z.array(zExecutor).nullable(),
  /** The CLIs' versions from the agent's last hello; `verified`: this Bria's suites passed against it. */
  cliVersions: z.array(z.object({ executor: zExecutor, version: z.string(), verified: z.boolean(), verifiedVersions: z.array(z.string()) })),
  openSessions: z.number().int().nonnegative(),
  defaultModes: z.object({ claude: z.string(), codex: z.string() }),
  unavailableModes: z.array(z.string()),
  remoteAnswersOff: z.enum(REMOTE_ANSWERS_OFF_REASONS).nullable(),
  tokens: z.array(z.object({ id: zId, label: z.string().nullable(), createdAt: zIsoDate, lastUsedAt: zIsoDateOrNull })),
});
export const ZListNodesResponse = z.object({ nodes: z.array(ZNodeView) });

export const ZAddComputerRequest = z.object({ name: z.string().trim().min(1).max(80) });
export const ZAddComputerResponse = z.object({ nodeId: zId, name: z.string(), token: z.string(), command: z.string() });

export const ZRevokeTokenRequest = z.object({ tokenId: zId });
export const ZRevokeTokenResponse = z.object({ tokenId: zId, nodeId: zId });

export const ZSetExecutorsRequest = z.object({ nodeId: zId, executors: z.array(zExecutor).min(1).max(2) });
export const ZSetExecutorsResponse = z.object({ nodeId: zId, enabledExecutors: z.array(zExecutor) });
/** The permission mode preselected for new sessions of one executor (checked against its list by the service). */
export const ZSetPermissionModeRequest = z.object({ nodeId: zId, executor: zExecutor, mode: z.string().min(1).max(64) });
export const ZSetPermissionModeResponse = z.object({ nodeId: zId, executor: zExecutor, mode: z.string() });

export const ZNodeRequest = z.object({ nodeId: zId });
/** Any text from the URL: an id that is no computer's (or no id at all) is an answer, not an input error. */
export const ZFindComputerRequest = z.object({ nodeId: z.string().max(200) });
export const ZFindComputerResponse = z.discriminatedUnion('status', [
  z.object({ status: z.literal('listed'), nodeId: zId, name: z.string() }),
  z.object({ status: z.literal('removed'), nodeId: zId, name: z.string(), removedAt: zIsoDate }),
  z.object({ status: z.literal('unknown') }),
]);
export const ZRemoveComputerResponse = z.object({ nodeId: zId, revokedTokens: z.number().int().nonnegative() });
/** Shown once: the new token and the command to run on that computer. */
/** `revokedTokens`: the computer's earlier live tokens, revoked by this one (it replaces them). */
export const ZIssueTokenResponse = z.object({ nodeId: zId, tokenId: zId, token: z.string(), command: z.string(), revokedTokens: z.number().int() });
