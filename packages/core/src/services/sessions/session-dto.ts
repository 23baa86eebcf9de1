import pino from 'pino';
import { attachCommand, canAcceptMessage, contextPercent, type CurrentActivity, handoffOf, summarizeQueue } from '../../domain/index.ts';
import type { Db } from '../../db/client.ts';
import type { SessionRow } from '../../db/repos/sessions.ts';
import type { Logger } from '../../log.ts';
import { permissionModeOf, type SessionPermissionMode } from '../../protocol/session-choices.ts';
import { type Clock, systemClock } from '../../engine/step/step-context.ts';

/** What every session service takes besides its own input. */
export interface ServiceDeps {
  db: Db;
  clock?: Clock;
  log?: Logger;
}
const silent = pino({ level: 'silent' });
export function depsOf(d: ServiceDeps): { db: Db; clock: Clock; log: Logger } {
  return { db: d.db, clock: d.clock ?? systemClock, log: d.log ?? silent };
}

export interface SessionDto {
  id: string;
  nodeId: string;
  executor: 'claude' | 'codex';
  folder: string;
  nativeSessionId: string | null;
  state: SessionRow['state'];
  version: number;
  title: string | null;
  firstPrompt: string | null;
  launchSource: string;
  createdAt: Date;
  lifetimeDeadline: Date | null;
  lifetimeExpired: boolean;
  archivedAt: Date | null;
  lastActivityAt: Date | null;
  /** When discovery found the CLI's own journal deleted on its computer (null: present, or not known gone). */
  nativeGoneAt: Date | null;
  /** Whether a new message would be stored now (refusals are explained by the service that refuses). */
  acceptsMessages: boolean;
  /** AwaitingRecovery only: the working state recovery returns to (what the session waits for). */
  resumeState: SessionRow['resumeState'];
  /** Fixed at creation: the executor's permission mode (older stored values read as what they launched). */
  permissionMode: SessionPermissionMode;
  /** Fixed at creation; null = the CLI's own default. */
  model: string | null;
  /** What the CLI did last, from its journal (the front ends show it while a turn runs). */
  activity: CurrentActivity | null;
  activityAt: Date | null;
  /** Context-window use as the journal states it; null before the first report. */
  context: ContextDto | null;
  /**
   * The process outside Bria that holds the native session (a terminal at the computer), with the
   * handoff state (domain/handoff.ts); null when none is known.
   */
  desk: DeskDto | null;
  /** The one command that continues this session at its computer (Bria's tmux), while Bria runs its CLI. */
  attachCommand: string | null;
  /** The session's own git worktree (docs/worktrees.md); null when it runs in the folder itself. */
  worktree: WorktreeDto | null;
}

export interface WorktreeDto {
  path: string;
  repo: string;
  branch: string;
  baseBranch: string;
  baseCommit: string;
  /** A finish removed the folder (the branch stays). */
  removedAt: Date | null;
}

export function worktreeOf(
  row: Pick<SessionRow, 'worktreePath' | 'worktreeRepo' | 'worktreeBranch' | 'worktreeRemovedAt' | 'gitBaseBranch' | 'gitBaseCommit'>,
): WorktreeDto | null {
  if (!row.worktreePath || !row.worktreeRepo || !row.worktreeBranch || !row.gitBaseBranch || !row.gitBaseCommit) return null;
  return {
    path: row.worktreePath,
    repo: row.worktreeRepo,
    branch: row.worktreeBranch,
    baseBranch: row.gitBaseBranch,
    baseCommit: row.gitBaseCommit,
    removedAt: row.worktreeRemovedAt,
  };
}

export interface DeskDto {
  handoff: 'desk' | 'taking_over' | 'adopting';
  pid: number | null;
  startTime: string | null;
  since: Date | null;
  command: string | null;
  inTmux: boolean;
}

export function deskOf(row: Pick<SessionRow, 'handoff' | 'deskPid' | 'deskStart' | 'deskSince' | 'deskCommand' | 'deskInTmux'>): DeskDto | null {
  const handoff = handoffOf(row.handoff);
  // An adopted session is Bria's own (its attach command names the user's server).
  if (handoff === 'none' || handoff === 'adopted') return null;
  return { handoff, pid: row.deskPid, startTime: row.deskStart, since: row.deskSince, command: row.deskCommand, inTmux: row.deskInTmux };
}

export interface ContextDto {
  usedTokens: number;
  windowTokens: number | null;
  /** `journal`: the CLI stated the window; `model`: Bria's table by model name; null: unknown. */
  windowSource: string | null;
  percent: number | null;
  compactions: number;
}

export function contextOf(row: Pick<SessionRow, 'contextUsed' | 'contextWindow' | 'contextWindowSource' | 'compactions'>): ContextDto | null {
  if (row.contextUsed === null) return null;
  return {
    usedTokens: row.contextUsed,
    windowTokens: row.contextWindow,
    windowSource: row.contextWindowSource,
    percent: contextPercent(row.contextUsed, row.contextWindow),
    compactions: row.compactions,
  };
}

/** A stored activity as the domain shaped it; anything else (an older shape) reads as none. */
function activityOf(v: unknown): CurrentActivity | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const a = v as Partial<CurrentActivity>;
  return typeof a.kind === 'string' && typeof a.at === 'string' && typeof a.steps === 'number' ? (a as CurrentActivity) : null;
}

export function toSessionDto(row: SessionRow): SessionDto {
  const accept = canAcceptMessage({
    state: row.state,
    version: row.version,
    resumeState: null,
    observerGeneration: row.observerGeneration,
    hasNativeId: row.nativeSessionId !== null,
    lifetimeDeadline: row.lifetimeDeadline,
    lifetimeExpired: row.lifetimeExpired,
    exitVerified: row.exitVerified,
    queue: summarizeQueue([]),
  });
  return {
    id: row.id,
    nodeId: row.nodeId,
    executor: row.executor,
    folder: row.folder,
    nativeSessionId: row.nativeSessionId,
    state: row.state,
    version: row.version,
    title: row.title,
    firstPrompt: row.firstPrompt?.slice(0, 240) ?? null,
    launchSource: row.launchSource,
    createdAt: row.createdAt,
    lifetimeDeadline: row.lifetimeDeadline,
    lifetimeExpired: row.lifetimeExpired,
    archivedAt: row.archivedAt,
    lastActivityAt: row.nativeLastActivity,
    nativeGoneAt: row.nativeGoneAt,
    acceptsMessages: accept.ok,
    resumeState: row.resumeState,
    permissionMode: permissionModeOf(row.executor, row.permissionMode),
    model: row.model,
    activity: activityOf(row.activity),
    activityAt: row.activityAt,
    context: contextOf(row),
    desk: deskOf(row),
    attachCommand: attachCommand(row),
    worktree: worktreeOf(row),
  };
}
