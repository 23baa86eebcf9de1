import { conversationNeverBegan, summarizeQueue, type QueueMessage, type RecoverableState, type SessionSnapshot } from '../../domain/index.ts';
import type { SessionRow } from '../../db/repos/sessions.ts';

export function toSnapshot(row: SessionRow, queue: readonly QueueMessage[]): SessionSnapshot {
  return {
    state: row.state,
    version: row.version,
    resumeState: row.resumeState as RecoverableState | null,
    observerGeneration: row.observerGeneration,
    hasNativeId: row.nativeSessionId !== null,
    lifetimeDeadline: row.lifetimeDeadline,
    lifetimeExpired: row.lifetimeExpired,
    exitVerified: row.exitVerified,
    queue: summarizeQueue(queue),
    noConversation: conversationNeverBegan(row, queue),
  };
}

/** The columns a transition writes (version is bumped by the repository). */
export function snapshotColumns(s: SessionSnapshot) {
  return {
    state: s.state,
    resumeState: s.resumeState,
    observerGeneration: s.observerGeneration,
    lifetimeDeadline: s.lifetimeDeadline,
    lifetimeExpired: s.lifetimeExpired,
    exitVerified: s.exitVerified,
  };
}
