import {
  AppError,
  addTokens,
  type BudgetWarning,
  estimateCost,
  type QueueWaitReason,
  queueWait,
  type SpendHold,
  type TokenCounts,
  ZERO_TOKENS,
} from '../../domain/index.ts';
import { readSpendState } from '../../engine/step/usage.ts';
import { readUsageSettings, sessionTokensByModel } from '../../db/repos/usage.ts';
import { readPumpView } from '../../db/repos/messages.ts';
import { DISPATCHER_ID } from '../../engine/step/queue-pump.ts';
import { type EvidenceDto, listEvidence } from '../../db/repos/evidence.ts';
import { getSessionRow } from '../../db/repos/sessions.ts';
import { type ActivityRowDto, listSessionActivity } from '../../db/repos/activity.ts';
import {
  type ConversationMessageDto,
  getNodeSummary,
  listConversation,
  listRecentFolders,
  listUsageHistory,
  type UsagePointDto,
} from '../../db/repos/session-views.ts';
import type { SessionPermissionMode } from '../../protocol/session-choices.ts';
import { depsOf, type ServiceDeps, type SessionDto, toSessionDto } from './session-dto.ts';
import { nodeDefaultMode } from './session-choices.ts';

export const CONVERSATION_LIMIT = 200;
export const USAGE_POINTS_LIMIT = 300;
export const ACTIVITY_LIMIT = 400;

export interface SessionViewDto {
  session: SessionDto;
  node: { id: string; name: string; online: boolean };
  /** The latest usage report as the agent sent it (token counters, context use, compactions). */
  usage: Record<string, unknown> | null;
  conversation: { items: ConversationMessageDto[]; total: number };
  /** Every transition with what was requested and what the node physically showed. */
  evidence: (Omit<EvidenceDto, 'id'> & { id: string })[];
  usageHistory: UsagePointDto[];
  /** The turn stream: tool calls and assistant text as the journal recorded them, newest ACTIVITY_LIMIT in time order. */
  activity: ActivityRowDto[];
  /**
   * What the oldest message still in the queue (`pending`) waits for: the queue gate's reason
   * (`domain/queue.ts` BlockReason), or null while nothing but its hand-over holds it; null overall
   * when no message waits.
   */
  queueWait: { messageId: string; reason: QueueWaitReason | null; until?: Date } | null;
  /**
   * The session's tokens from its journal (cached apart) and their estimated cost (prices known for
   * its models only: `unpricedTokens` were not priced); `hold`: a usage limit or budget that holds
   * its next message now.
   */
  spend: {
    tokens: TokenCounts;
    turns: number;
    costUsd: number;
    unpricedTokens: number;
    budgetSessionUsd: number | null;
    hold: SpendHold | null;
    warning: BudgetWarning | null;
  };
}

/**
 * Everything the dashboard shows for one session, read in one go: state, conversation with
 * outcomes, evidence timeline and usage over time. Message texts leave only through this DTO.
 */
export async function getSessionView(deps: ServiceDeps, input: { sessionId: string }): Promise<SessionViewDto> {
  const { db, clock } = depsOf(deps);
  const row = await getSessionRow(db, input.sessionId);
  if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
  const [node, conversation, evidence, usageHistory, activity, pump] = await Promise.all([
    getNodeSummary(db, row.nodeId),
    listConversation(db, row.id, CONVERSATION_LIMIT),
    listEvidence(db, row.id),
    listUsageHistory(db, { nodeId: row.nodeId, sessionId: row.id, limit: USAGE_POINTS_LIMIT }),
    listSessionActivity(db, row.id, { limit: ACTIVITY_LIMIT }),
    readPumpView(db, row.id),
  ]);
  const [byModel, usageSettings, { hold, warning }] = await Promise.all([
    sessionTokensByModel(db, row.id),
    readUsageSettings(db),
    readSpendState(db, row, clock.now()),
  ]);
  const cost = estimateCost(byModel, usageSettings.priceOverrides);
  if (!node) throw new AppError('NOT_FOUND', { message: 'node not found' });
  const usage = row.usage && typeof row.usage === 'object' && !Array.isArray(row.usage) ? (row.usage as Record<string, unknown>) : null;
  return {
    session: toSessionDto(row),
    node: { id: node.id, name: node.name, online: node.online },
    usage,
    conversation,
    evidence: evidence.map((e) => ({ ...e, id: e.id.toString() })),
    usageHistory,
    activity,
    queueWait: pump ? queueWait(pump.row, pump.queue, DISPATCHER_ID, hold) : null,
    spend: {
      tokens: byModel.reduce((t, m) => addTokens(t, m.tokens), ZERO_TOKENS),
      turns: byModel.reduce((n, m) => n + m.turns, 0),
      costUsd: cost.usd,
      unpricedTokens: cost.unpricedTokens,
      budgetSessionUsd: usageSettings.budgetSessionUsd,
      hold,
      warning,
    },
  };
}

export interface NewSessionOptionsDto {
  /** `missingExecutors`: CLIs the node's agent could not run (not offered, with that reason). */
  node: {
    id: string;
    name: string;
    online: boolean;
    enabledExecutors: ('claude' | 'codex')[];
    missingExecutors: ('claude' | 'codex')[];
    defaultModes: { claude: SessionPermissionMode; codex: SessionPermissionMode };
    unavailableModes: string[];
  };
  recentFolders: string[];
}

/** What the new-session form offers on a node: its enabled executors (disabled ones are not offered) and recent folders. */
export async function newSessionOptions(deps: ServiceDeps, input: { nodeId: string; executor?: 'claude' | 'codex' }): Promise<NewSessionOptionsDto> {
  const { db } = depsOf(deps);
  const node = await getNodeSummary(db, input.nodeId);
  if (!node) throw new AppError('NOT_FOUND', { message: 'node not found' });
  const recentFolders = await listRecentFolders(db, { nodeId: node.id, ...(input.executor ? { executor: input.executor } : {}), limit: 8 });
  const { claudePermissionMode: _c, codexPermissionMode: _x, ...rest } = node;
  return { node: { ...rest, defaultModes: { claude: nodeDefaultMode('claude', node), codex: nodeDefaultMode('codex', node) } }, recentFolders };
}
