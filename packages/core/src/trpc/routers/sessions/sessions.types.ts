import { MAX_ATTACHMENT_BYTES } from '../../../protocol/index.ts';
import { z } from 'zod';
import { BLOCK_REASONS, MESSAGE_STATUSES, SESSION_STATES, SPEND_WAIT_REASONS } from '../../../domain/index.ts';
import { zExecutor, zId, zIsoDate, zIsoDateOrNull, zSpendHold, zTokenCounts } from '../zod-shared.ts';

export const zSessionState = z.enum(SESSION_STATES);
export const zMessageStatus = z.enum(MESSAGE_STATUSES);

export const ZSessionView = z.object({
  id: zId,
  nodeId: zId,
  executor: zExecutor,
  folder: z.string(),
  nativeSessionId: z.string().nullable(),
  state: zSessionState,
  version: z.number().int(),
  title: z.string().nullable(),
  /** The first prompt of the conversation, clipped (lists show it when the CLI gave no title). */
  firstPrompt: z.string().nullable(),
  launchSource: z.string(),
  createdAt: zIsoDate,
  lifetimeDeadline: zIsoDateOrNull,
  lifetimeExpired: z.boolean(),
  archivedAt: zIsoDateOrNull,
  lastActivityAt: zIsoDateOrNull,
  /** Discovery found the CLI's own journal deleted on its computer. */
  nativeGoneAt: zIsoDateOrNull,
  acceptsMessages: z.boolean(),
  /** AwaitingRecovery only: the working state recovery returns to. */
  resumeState: zSessionState.nullable(),
  /** Fixed at creation: one of the executor's modes (protocol/session-choices.ts). */
  permissionMode: z.string(),
  /** Fixed at creation; null = the CLI's own default. */
  model: z.string().nullable(),
  /** What the CLI did last, from its journal (shown while a turn runs; domain/activity.ts). */
  activity: z
    .object({
      kind: z.string(),
      toolName: z.string().nullable(),
      subject: z.string().nullable(),
      status: z.string(),
      added: z.number().nullable(),
      removed: z.number().nullable(),
      reads: z.number().int(),
      steps: z.number().int(),
      nativeTurnId: z.string().nullable(),
      turnStartedAt: z.string(),
      at: z.string(),
    })
    .nullable(),
  activityAt: zIsoDateOrNull,
  /** Context-window use as the journal states it. */
  context: z
    .object({
      usedTokens: z.number().int(),
      windowTokens: z.number().int().nullable(),
      windowSource: z.string().nullable(),
      percent: z.number().nullable(),
      compactions: z.number().int(),
    })
    .nullable(),
  /** The process outside Bria holding the native session (a terminal at the computer), or null. */
  desk: z
    .object({
      handoff: z.enum(['desk', 'taking_over', 'adopting']),
      pid: z.number().int().nullable(),
      startTime: z.string().nullable(),
      since: zIsoDateOrNull,
      command: z.string().nullable(),
      inTmux: z.boolean(),
    })
    .nullable(),
  /** `tmux -L <socket> attach -t <session>`: continue at the computer while Bria runs the CLI. */
  attachCommand: z.string().nullable(),
  /** The session's own git worktree (docs/worktrees.md); null when it runs in the folder itself. */
  worktree: z
    .object({
      path: z.string(),
      repo: z.string(),
      branch: z.string(),
      baseBranch: z.string(),
      baseCommit: z.string(),
      removedAt: zIsoDateOrNull,
    })
    .nullable(),
});

export const ZNodeRequest = z.object({ nodeId: zId });
export const ZSessionRequest = z.object({ sessionId: zId });
/** Buttons carry the version they were drawn with; a press on an outdated page is refused as stale. */
export const ZLifecycleRequest = z.object({ sessionId: zId, version: z.number().int().nonnegative().optional() });
export const ZListOpenResponse = z.object({ sessions: z.array(ZSessionView) });

const zMessage = z.object({
  id: zId,
  seq: z.number().int(),
  source: z.string(),
  text: z.string(),
  /** The text first sent, kept when the message was edited in the queue. */
  originalText: z.string().nullable(),
  finalText: z.string().nullable(),
  status: zMessageStatus,
  mainMessageId: zId.nullable(),
  outcomeDetail: z.string().nullable(),
  createdAt: zIsoDate,
  acceptedAt: zIsoDateOrNull,
  outcomeAt: zIsoDateOrNull,
  attachmentCount: z.number().int().nonnegative(),
  /** Set when the message failed because of its attachment (never the executor's failure). */
  attachmentFailure: z.enum(['not_stored', 'unreadable']).nullable(),
});
const zEvidence = z.object({
  id: z.string(),
  event: z.string(),
  actor: z.string(),
  fromState: zSessionState.nullable(),
  toState: zSessionState.nullable(),
  evidence: z.unknown(),
  createdAt: zIsoDate,
});
const zActivityRow = z.object({
  id: z.string(),
  ref: z.string(),
  nativeTurnId: z.string().nullable(),
  messageId: zId.nullable(),
  kind: z.string(),
  toolName: z.string().nullable(),
  subject: z.string().nullable(),
  status: z.string(),
  exitCode: z.number().int().nullable(),
  outputHead: z.string().nullable(),
  diffAdded: z.number().int().nullable(),
  diffRemoved: z.number().int().nullable(),
  diffText: z.string().nullable(),
  text: z.string().nullable(),
  sourceRecordId: z.string(),
  sourceOffset: z.number().int(),
  eventSeq: z.number().int(),
  startedAt: zIsoDate,
  endedAt: zIsoDateOrNull,
});
const zUsagePoint = z.object({
  at: zIsoDate,
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  contextWindowUsed: z.number().nullable(),
});

export const ZGetSessionResponse = z.object({
  session: ZSessionView,
  node: z.object({ id: zId, name: z.string(), online: z.boolean() }),
  usage: z.record(z.string(), z.unknown()).nullable(),
  conversation: z.object({ items: z.array(zMessage), total: z.number().int() }),
  evidence: z.array(zEvidence),
  usageHistory: z.array(zUsagePoint),
  /** The turn stream: tool calls and assistant text as the journal recorded them (newest `ACTIVITY_LIMIT`, in time order). */
  activity: z.array(zActivityRow),
  /** What the oldest pending message waits for (a queue gate's reason, null: only its hand-over); null when none waits. */
  queueWait: z
    .object({
      messageId: zId,
      reason: z.union([z.enum(BLOCK_REASONS).exclude(['nothing_pending']), z.enum(SPEND_WAIT_REASONS)]).nullable(),
      /** `usage_limit`: when the limit resets. */
      until: zIsoDate.optional(),
    })
    .nullable(),
  /** The session's tokens and estimated cost; what holds its next message for limits or money. */
  spend: z.object({
    tokens: zTokenCounts,
    turns: z.number().int(),
    costUsd: z.number(),
    unpricedTokens: z.number(),
    budgetSessionUsd: z.number().nullable(),
    hold: zSpendHold.nullable(),
    /** A budget at 80 % or more, not yet reached (`budgetWarning`): the page warns before messages wait. */
    warning: z.object({ scope: z.enum(['session', 'day']), budgetUsd: z.number(), spentUsd: z.number() }).nullable(),
  }),
});

export const ZCreateSessionRequest = z.object({
  nodeId: zId,
  executor: zExecutor.optional(),
  folder: z.string().trim().min(1).max(4096),
  /** Absent = the node's default for the executor; checked against the executor's list by the service. */
  permissionMode: z.string().max(64).optional(),
  /** Empty = the CLI's own default; the name is checked by the service. */
  model: z.string().max(200).optional(),
  /** What the session is for, as the user named it (its worktree branch is named from it). */
  title: z.string().max(200).optional(),
  /** "In its own worktree" on this new branch (domain `branchFromTitle` suggests it; git has the last word). */
  worktree: z.object({ branch: z.string().trim().min(1).max(100) }).optional(),
});

/** A file sent with a message from the dashboard (issue 34): base64 of its bytes, within the protocol's limit. */
export const ZUploadedAttachment = z.object({
  name: z.string().min(1).max(200),
  mime: z
    .string()
    .max(100)
    .regex(/^[\w.+-]+\/[\w.+-]+$/),
  base64: z
    .string()
    .max(Math.ceil((MAX_ATTACHMENT_BYTES * 4) / 3) + 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/),
});
export const ZSendMessageRequest = z.object({
  sessionId: zId,
  /** May be empty when files go with it. */
  text: z.string().max(200_000),
  attachments: z.array(ZUploadedAttachment).max(4).optional(),
  /** Generated by the page once per typed message, so a retried request is stored once. */
  clientKey: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
  /** "Send now": interrupt the running turn (as Stop does) and deliver this next (issue 33). Default: after this turn. */
  now: z.boolean().optional(),
});
/** Cancel or edit a queued message never handed to the CLI (issue 33). */
export const ZCancelMessageRequest = z.object({ messageId: zId });
export const ZEditMessageRequest = z.object({ messageId: zId, text: z.string().min(1).max(200_000) });
export const ZChangedMessageResponse = z.object({ id: zId, sessionId: zId, seq: z.number().int(), status: zMessageStatus });
export const ZSendMessageResponse = z.object({
  message: z.object({ id: zId, seq: z.number().int(), status: zMessageStatus, createdAt: zIsoDate }),
  duplicate: z.boolean(),
  /** The running turn was interrupted for this message (`now`). */
  interrupted: z.boolean().optional(),
});

export const ZNewSessionOptionsRequest = z.object({ nodeId: zId, executor: zExecutor.optional() });
export const ZNewSessionOptionsResponse = z.object({
  /** `missingExecutors`: CLIs the node's agent could not run; enabled ones among them are not offered. */
  node: z.object({
    id: zId,
    name: z.string(),
    online: z.boolean(),
    enabledExecutors: z.array(zExecutor),
    missingExecutors: z.array(zExecutor),
    /** The mode preselected per executor, and `<executor>:<mode>` modes that cannot start on this node. */
    defaultModes: z.object({ claude: z.string(), codex: z.string() }),
    unavailableModes: z.array(z.string()),
  }),
  recentFolders: z.array(z.string()),
});

export const ZResumeRecommendationsRequest = z.object({ nodeId: zId, executor: zExecutor, folder: z.string().trim().min(1).max(4096) });
export const ZResumeRecommendationsResponse = z.object({ enabled: z.boolean(), items: z.array(ZSessionView) });
