import type { SessionEventType, SessionState } from './session-types.ts';

/** `previous` = the state stored in `resumeState` (AwaitingRecovery only). */
export type Target = SessionState | 'previous';
/** Guards that choose between branches of one (state, event) entry. */
export type BranchGuard = 'hasAcceptedWork' | 'expiredAndIdle' | 'exitVerified' | 'noWorkInFlight' | 'wasResuming';
export interface Branch {
  readonly when?: BranchGuard;
  readonly to: Target;
}
/** A plain target, or guarded branches tried in order (a branch without `when` is the fallback). */
export type Rule = Target | readonly Branch[];

/** Losing the process, the observer or the node moves any working state to AwaitingRecovery. */
const LOSS = {
  observer_lost: 'AwaitingRecovery',
  node_lost: 'AwaitingRecovery',
  process_exited_verified: 'AwaitingRecovery',
} as const;

/** A final-save retry keeps the session where it is: no false Ready/Archived (SPEC §3). */
function finalSave<S extends SessionState>(s: S) {
  return { final_save_failed: s, final_save_retry_due: s, final_save_recovered: s } as const;
}

/**
 * The whole session lifecycle. A (state, event) pair that is not listed is an illegal move.
 * Self-loops are listed explicitly: they are legal facts that change data or produce effects
 * without changing the state. See README.md for the diagram generated from this table.
 */
export const SESSION_TABLE = {
  Starting: {
    cli_ready: 'Ready',
    // The user cancels a start that waits (e.g. on a folder-trust dialog): the CLI is closed and the
    // session archived without a conversation (nothing of it is left running).
    close_requested: 'Closing',
    lifetime_expired: 'Starting',
    ...LOSS,
  },
  Resuming: {
    resume_confirmed: 'Ready',
    resume_failed: 'ResumeFailed',
    // The CLI exiting during resume (unknown id, corrupt journal) is a failed resume.
    process_exited_verified: 'ResumeFailed',
    // No answer within the bound: a failure with a cause, not a wait without end.
    resume_timed_out: 'ResumeFailed',
    observer_lost: 'AwaitingRecovery',
    node_lost: 'AwaitingRecovery',
  },
  Ready: {
    turn_started: 'Running',
    // "Close when no work runs": a message being handed over (leased) is work.
    close_requested: [{ when: 'noWorkInFlight', to: 'Closing' }],
    lifetime_expired: [{ when: 'hasAcceptedWork', to: 'Ready' }, { to: 'Closing' }],
    work_drained: [{ when: 'expiredAndIdle', to: 'Closing' }, { to: 'Ready' }],
    ...LOSS,
  },
  Running: {
    turn_started: 'Running',
    work_drained: 'Ready',
    stop_requested: 'Stopping',
    lifetime_expired: 'ClosingAfterWork',
    ...finalSave('Running'),
    ...LOSS,
  },
  Stopping: {
    // The interrupt ends only the turns it names. A follow-up still in flight (Claude runs a queued
    // one as a turn of its own after the interrupt; its receipt may still be on its way) is part of
    // the stop: its bounded drain stays in force until that message's own evidence ends it
    // (work_drained), or the drain expires and the interrupt is sent once more.
    interrupt_confirmed: [{ when: 'noWorkInFlight', to: 'Ready' }, { to: 'Stopping' }],
    // The turn ended on its own (outcomes durable) before the interrupt landed.
    work_drained: 'Ready',
    turn_started: 'Stopping',
    stop_drain_expired: 'Stopping',
    // The interrupt was sent twice and a second drain passed: the stop ends without a confirmation
    // (its messages' outcome unknown), so a session never waits in Stopping for ever.
    stop_unresolved: 'Ready',
    lifetime_expired: 'Stopping',
    ...finalSave('Stopping'),
    ...LOSS,
  },
  ClosingAfterWork: {
    work_drained: [{ when: 'hasAcceptedWork', to: 'ClosingAfterWork' }, { to: 'Closing' }],
    turn_started: 'ClosingAfterWork',
    stop_requested: 'ClosingAfterWork',
    interrupt_confirmed: 'ClosingAfterWork',
    stop_drain_expired: 'ClosingAfterWork',
    ...finalSave('ClosingAfterWork'),
    ...LOSS,
  },
  AwaitingRecovery: {
    reattached: 'previous',
    reattach_refused: 'AwaitingRecovery',
    recovery_retry_due: 'AwaitingRecovery',
    node_returned: 'AwaitingRecovery',
    // A really closed terminal: restore the same native session on the same node (exact resume).
    process_exited_verified: 'AwaitingRecovery',
    // A resume that lost its binding is recovered by resuming exactly again; its failure, or its
    // bound passing, ends the attempt as it would in Resuming (the state it returns to).
    resume_failed: [{ when: 'wasResuming', to: 'ResumeFailed' }, { to: 'AwaitingRecovery' }],
    resume_timed_out: [{ when: 'wasResuming', to: 'ResumeFailed' }, { to: 'AwaitingRecovery' }],
    lifetime_expired: 'AwaitingRecovery',
    // A receipt the CLI wrote before the binding was lost, reported after: the session returns to
    // Running (see the plan), so the end of that turn drains it (docs/reliability.md).
    turn_started: 'AwaitingRecovery',
    observer_lost: 'AwaitingRecovery',
    node_lost: 'AwaitingRecovery',
  },
  Closing: {
    process_exited_verified: 'Closing',
    archive_committed: [{ when: 'exitVerified', to: 'Archived' }],
    archive_commit_failed: 'Closing',
    archive_commit_retry_due: 'Closing',
    // A close the agent did not prove (not verified, no answer, an agent that lost the session) is
    // asked for again on a schedule: Closing never waits on a reconnection alone.
    close_retry_due: 'Closing',
    observer_lost: 'Closing',
    node_lost: 'Closing',
    node_returned: 'Closing',
  },
  Archived: {
    resume_requested: 'Resuming',
  },
  ResumeFailed: {
    resume_failure_reported: 'Archived',
  },
} as const satisfies Record<SessionState, Partial<Record<SessionEventType, Rule>>>;

/** The rule for a pair, or undefined when the move is illegal. */
export function ruleFor(state: SessionState, event: SessionEventType): Rule | undefined {
  const row: Partial<Record<SessionEventType, Rule>> = SESSION_TABLE[state];
  return row[event];
}

/** Every branch of a rule, normalised (plain targets become one unguarded branch). */
export function branchesOf(rule: Rule): readonly Branch[] {
  return typeof rule === 'string' ? [{ to: rule }] : rule;
}
