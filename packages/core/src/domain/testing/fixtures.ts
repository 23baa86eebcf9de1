import { branchesOf, ruleFor } from '../session-table.ts';
import type { SessionEvent, SessionEventType, SessionSnapshot, SessionState } from '../session-types.ts';

export const T0 = new Date('2026-09-02T09:00:00.000Z');
export const GEN = 3;
export const VERSION = 7;

/** A snapshot in `state` under which every listed move of that state is allowed by its guards. */
export function snapshotIn(state: SessionState, over: Partial<SessionSnapshot> = {}): SessionSnapshot {
  return {
    state,
    version: VERSION,
    resumeState: state === 'AwaitingRecovery' ? 'Running' : null,
    observerGeneration: GEN,
    hasNativeId: true,
    lifetimeDeadline: new Date(T0.getTime() - 1000),
    lifetimeExpired: false,
    exitVerified: state === 'Closing',
    queue: { inFlight: false, waiting: false },
    ...over,
  };
}

/** A valid, current instance of every event type. */
export function sampleEvent(type: SessionEventType, generation = GEN): SessionEvent {
  switch (type) {
    case 'cli_ready':
    case 'turn_started':
    case 'interrupt_confirmed':
    case 'process_exited_verified':
    case 'observer_lost':
      return { type, generation };
    case 'resume_confirmed':
      return { type, generation, lifetime: '12h' };
    case 'resume_failed':
      return { type, generation, cause: 'unknown_session_id' };
    case 'reattached':
      return { type, generation, mode: 'observer' };
    case 'reattach_refused':
      return { type, generation, reason: 'identity_mismatch' };
    case 'work_drained':
    case 'archive_committed':
    case 'node_lost':
    case 'node_returned':
    case 'final_save_recovered':
    case 'resume_failure_reported':
    case 'lifetime_expired':
    case 'stop_drain_expired':
    case 'stop_unresolved':
    case 'resume_timed_out':
      return { type };
    case 'archive_commit_failed':
    case 'final_save_failed':
      return { type, attempt: 1 };
    case 'recovery_retry_due':
      return { type, attempt: 0 };
    case 'final_save_retry_due':
    case 'archive_commit_retry_due':
    case 'close_retry_due':
      return { type, attempt: 1 };
    case 'stop_requested':
    case 'close_requested':
    case 'resume_requested':
      return { type, cardVersion: VERSION };
    default:
      return type satisfies never;
  }
}

/** Every state a pair may lead to according to the table (tests only: the product asks `transition`). */
export function possibleTargets(state: SessionState, event: SessionEventType): SessionState[] {
  const rule = ruleFor(state, event);
  if (rule === undefined) return [];
  return [...new Set(branchesOf(rule).flatMap((b) => (b.to === 'previous' ? [...RECOVERY_TARGETS] : [b.to])))];
}
const RECOVERY_TARGETS = ['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork'] as const;
