import type { LifetimeSetting } from './lifetime.ts';

/** The ten session states of SPEC §2. There is deliberately no "lost" state. */
export const SESSION_STATES = [
  'Starting',
  'Resuming',
  'Ready',
  'Running',
  'Stopping',
  'ClosingAfterWork',
  'AwaitingRecovery',
  'Closing',
  'Archived',
  'ResumeFailed',
] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** States AwaitingRecovery may return to: the "previous working state" of SPEC §2. */
export const RECOVERABLE_STATES = ['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork'] as const satisfies readonly SessionState[];
export type RecoverableState = (typeof RECOVERABLE_STATES)[number];

/** Open sessions: every state but the two archive ones (`Archived`, `ResumeFailed`). */
export const OPEN_STATES = [...RECOVERABLE_STATES, 'AwaitingRecovery', 'Closing'] as const satisfies readonly SessionState[];
export type OpenState = (typeof OPEN_STATES)[number];

export function isOpenState(state: string): state is OpenState {
  return (OPEN_STATES as readonly string[]).includes(state);
}

/** Physical facts the agent reported, stored verbatim as inspectable evidence (pids, exit codes, offsets). */
export type Evidence = Readonly<Record<string, string | number | boolean | null>>;

/**
 * Facts reported by the node agent. `generation` is the observer claim they were produced under;
 * a fact from an older generation (a superseded observer or attempt) is refused.
 */
type AgentFact<T extends string, P = object> = { type: T; generation: number; evidence?: Evidence } & P;
/** User intents; `cardVersion` is the session version the pressed button was drawn for. */
type Intent<T extends string> = { type: T; cardVersion?: number };
/** Hub-side facts (connection tracking, persistence results). */
type HubFact<T extends string, P = object> = { type: T; evidence?: Evidence } & P;
/** Scheduler events: timers are data, fired by the service's scheduler. */
type Timer<T extends string, P = object> = { type: T } & P;

export type ReattachRefusal = 'identity_mismatch' | 'competing_owner' | 'not_found';

export type SessionEvent =
  | AgentFact<'cli_ready'>
  | AgentFact<'resume_confirmed', { lifetime: LifetimeSetting }>
  | AgentFact<'resume_failed', { cause: string }>
  | AgentFact<'turn_started'>
  | AgentFact<'interrupt_confirmed'>
  /** Process identity (pid + start time) verified gone and pane closed; observer EOF is not enough. */
  | AgentFact<'process_exited_verified'>
  /** Observer detached (agent restart, read error); the CLI keeps running in tmux. */
  | AgentFact<'observer_lost'>
  /** Exact identity (node, folder, native id, tmux pane, pid + start time) confirmed by a new observer. */
  | AgentFact<'reattached', { mode: 'observer' | 'exact_resume' }>
  | AgentFact<'reattach_refused', { reason: ReattachRefusal }>
  /** All leased/accepted messages have durable outcomes (level-triggered by the queue service). */
  | HubFact<'work_drained'>
  | HubFact<'archive_committed'>
  | HubFact<'archive_commit_failed', { attempt: number }>
  | HubFact<'node_lost'>
  | HubFact<'node_returned'>
  /** The write of an already received final failed; `attempt` counts failures from 1. */
  | HubFact<'final_save_failed', { attempt: number }>
  | HubFact<'final_save_recovered'>
  /** The single resume-failure notice is durably in the outbox. */
  | HubFact<'resume_failure_reported'>
  | Intent<'stop_requested'>
  | Intent<'close_requested'>
  | Intent<'resume_requested'>
  | Timer<'lifetime_expired'>
  | Timer<'recovery_retry_due', { attempt: number }>
  | Timer<'final_save_retry_due', { attempt: number }>
  | Timer<'stop_drain_expired'>
  /**
   * The stop's second drain passed too (the interrupt was sent twice) and a message it holds still
   * has no outcome: the stop ends, those messages' outcome is unknown (docs/reliability.md).
   */
  | Timer<'stop_unresolved'>
  | Timer<'archive_commit_retry_due', { attempt: number }>
  /** The resume's bound (`RESUME_ANSWER_MS`) passed with no answer from the agent. */
  | Timer<'resume_timed_out'>
  /** A close not yet proven (no verified exit) is asked for again. */
  | Timer<'close_retry_due', { attempt: number }>;

export type SessionEventType = SessionEvent['type'];

export const SESSION_EVENT_TYPES = [
  'cli_ready',
  'resume_confirmed',
  'resume_failed',
  'turn_started',
  'interrupt_confirmed',
  'process_exited_verified',
  'observer_lost',
  'reattached',
  'reattach_refused',
  'work_drained',
  'archive_committed',
  'archive_commit_failed',
  'node_lost',
  'node_returned',
  'final_save_failed',
  'final_save_recovered',
  'resume_failure_reported',
  'stop_requested',
  'close_requested',
  'resume_requested',
  'lifetime_expired',
  'recovery_retry_due',
  'final_save_retry_due',
  'stop_drain_expired',
  'stop_unresolved',
  'archive_commit_retry_due',
  'resume_timed_out',
  'close_retry_due',
] as const satisfies readonly SessionEventType[];

export const AGENT_FACT_TYPES = [
  'cli_ready',
  'resume_confirmed',
  'resume_failed',
  'turn_started',
  'interrupt_confirmed',
  'process_exited_verified',
  'observer_lost',
  'reattached',
  'reattach_refused',
] as const satisfies readonly SessionEventType[];

export const INTENT_TYPES = ['stop_requested', 'close_requested', 'resume_requested'] as const satisfies readonly SessionEventType[];

/** What the queue looks like, summarised by `summarizeQueue` in queue.ts. */
export interface QueueSummary {
  /** Some message is `leased` (acceptance pending) or `accepted` without a durable outcome. */
  inFlight: boolean;
  /** Some message is `pending` (stored, not yet handed to the CLI). */
  waiting: boolean;
}

/** Everything the machine's guards need; services build it from the stored row plus the queue. */
export interface SessionSnapshot {
  state: SessionState;
  /** Optimistic-concurrency version of the stored row; buttons carry it to detect staleness. */
  version: number;
  /** Only set in AwaitingRecovery: the working state to return to. */
  resumeState: RecoverableState | null;
  /** Current observer claim; every attach/resume/start attempt takes a new one. */
  observerGeneration: number;
  /** False only while a new Codex session has not told its id yet: recovery must start, not resume. */
  hasNativeId: boolean;
  /** Null means "never expires" (and while Resuming/Archived). */
  lifetimeDeadline: Date | null;
  lifetimeExpired: boolean;
  /** Closing only: the agent verified the process is gone. Derived from the evidence log. */
  exitVerified: boolean;
  queue: QueueSummary;
  /**
   * True only when it is certain that no native conversation exists for this session (see
   * `conversationNeverBegan` in queue.ts): its CLI may then be started again, never resumed.
   * Absent or false means "there may be one" — the session is only ever resumed or re-attached.
   */
  noConversation?: boolean;
}

export type CommandKind = 'start' | 'resume' | 'deliver' | 'interrupt' | 'close' | 'reattach';
export type TimerName = 'lifetime' | 'recovery_retry' | 'final_save_retry' | 'stop_drain' | 'archive_commit_retry' | 'resume_timeout' | 'close_retry';
export type NotifyKind = 'card_update' | 'work_finished' | 'resume_failed' | 'final_save_failing' | 'final_save_recovered' | 'stop_unconfirmed' | 'closed';
export type QueueOp =
  /** Re-evaluate `nextDeliverable` now (outcome saved, session became able to take input). */
  | 'wake'
  /** Never-delivered `pending` messages of a session that will not run them get `failed`. */
  | 'fail_undelivered'
  /** Re-check accepted messages against the exact journal by id; nothing is re-sent. */
  | 'recheck_outcomes'
  /** A stop that never got its confirmation ends: the messages it held (`accepted`) get `unknown`. */
  | 'end_unconfirmed_stop';

export type SessionEffect =
  /** `deliver` commands also name the message (and the main request a follow-up joins). */
  | { type: 'send_command'; kind: CommandKind; generation: number; messageId?: string; mainMessageId?: string }
  | { type: 'notify'; kind: NotifyKind; detail?: string }
  | { type: 'schedule'; timer: TimerName; at: Date; attempt?: number }
  | { type: 'cancel'; timer: TimerName }
  | { type: 'record_evidence'; event: SessionEventType; from: SessionState; to: SessionState; evidence: Evidence | null }
  | { type: 'queue'; op: QueueOp; reason?: string }
  | { type: 'retry_final_save'; attempt: number }
  | { type: 'commit_archive'; attempt: number };
