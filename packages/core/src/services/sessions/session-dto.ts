import pino from 'pino';
import { canAcceptMessage, summarizeQueue } from '../../domain/index.ts';
import type { Db } from '../../db/client.ts';
import type { SessionRow } from '../../db/repos/sessions.ts';
import type { Logger } from '../../log.ts';
import { permissionModeOf, type SessionPermissionMode } from '../../protocol/session-choices.ts';
import { type Clock, systemClock } from '../../engine/step/step-context.ts';

/** What every session service takes besides its own input. */
export interface ServiceDeps { db: Db; clock?: Clock; log?: Logger }
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
}

export function toSessionDto(row: SessionRow): SessionDto {
  const accept = canAcceptMessage({
    state: row.state, version: row.version, resumeState: null, observerGeneration: row.observerGeneration, hasNativeId: row.nativeSessionId !== null,
    lifetimeDeadline: row.lifetimeDeadline, lifetimeExpired: row.lifetimeExpired, exitVerified: row.exitVerified, queue: summarizeQueue([]),
  });
  return {
    id: row.id, nodeId: row.nodeId, executor: row.executor, folder: row.folder, nativeSessionId: row.nativeSessionId, state: row.state,
    version: row.version, title: row.title, firstPrompt: row.firstPrompt?.slice(0, 240) ?? null, launchSource: row.launchSource, createdAt: row.createdAt, lifetimeDeadline: row.lifetimeDeadline,
    lifetimeExpired: row.lifetimeExpired, archivedAt: row.archivedAt, lastActivityAt: row.nativeLastActivity, nativeGoneAt: row.nativeGoneAt, acceptsMessages: accept.ok,
    resumeState: row.resumeState, permissionMode: permissionModeOf(row.executor, row.permissionMode), model: row.model,
  };
}
