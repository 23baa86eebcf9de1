import { deadlineFrom } from './lifetime.ts';
import { archiveCommitDelay, closeRetryDelay, finalSaveDelay, RESUME_ANSWER_MS, RESUME_NO_ANSWER, recoveryDelay, STOP_DRAIN_MS } from './retry-schedule.ts';
import type { RecoverableState, SessionEffect, SessionEvent, SessionSnapshot, SessionState } from './session-types.ts';

export interface PlanInput {
  from: SessionSnapshot;
  to: SessionState;
  event: SessionEvent;
  now: Date;
  jitter: number;
}

export interface Plan {
  next: SessionSnapshot;
  effects: SessionEffect[];
}

const at = (now: Date, ms: number) => new Date(now.getTime() + ms);

/**
 * Computes the next snapshot and the effects of a legal move. Order of effects: evidence first
 * (every move is inspectable), then leaving the old state, the event's own effects, entering the
 * new one. Services run them in this order.
 */
export function plan({ from, to, event, now, jitter }: PlanInput): Plan {
  const next: SessionSnapshot = { ...from, state: to };
  const fx: SessionEffect[] = [
    { type: 'record_evidence', event: event.type, from: from.state, to, evidence: 'evidence' in event ? (event.evidence ?? null) : null },
  ];
  const changed = from.state !== to;
  // Every start/resume/attach attempt takes a new observer claim, so late replies of an older
  // attempt carry a stale generation and are refused.
  const claim = (): number => {
    next.observerGeneration += 1;
    return next.observerGeneration;
  };
  // A session that never reached Ready has no native conversation yet (Claude writes its journal
  // with the first prompt; a Codex id is only known from session_ready): it cannot be resumed, so it
  // is started again, under the id it was given (Claude) — the same session, never a replacement.
  // Resuming it instead failed every time and held its queue forever (docs/reliability.md).
  // The same holds for a session whose CLI reached Ready but never took a message (`noConversation`:
  // no receipt, nothing ever handed over, never archived): Codex writes its rollout, and Claude its
  // journal, only with the first prompt, so the id it showed at start cannot be resumed.
  const neverReady = from.state === 'Starting' || (from.state === 'AwaitingRecovery' && from.resumeState === 'Starting');
  const startAgain = neverReady || from.noConversation === true;
  // A resume that lost its binding never confirmed a CLI that could be attached to: it is recovered
  // by the exact resume itself (the agent answers a repeat for a CLI it already runs at once).
  const resuming = from.state === 'AwaitingRecovery' && from.resumeState === 'Resuming';
  const recover = (): void => {
    fx.push({ type: 'send_command', kind: from.hasNativeId && !startAgain ? 'resume' : 'start', generation: claim() });
  };

  if (changed && from.state === 'AwaitingRecovery') {
    next.resumeState = null;
    fx.push({ type: 'cancel', timer: 'recovery_retry' });
  }
  if (changed && from.state === 'Stopping') fx.push({ type: 'cancel', timer: 'stop_drain' });
  if (changed && (to === 'Ready' || to === 'ResumeFailed') && (from.state === 'Resuming' || resuming)) fx.push({ type: 'cancel', timer: 'resume_timeout' });
  if (changed && to === 'AwaitingRecovery') next.resumeState = from.state as RecoverableState;

  switch (event.type) {
    case 'turn_started':
      // Accepted by the CLI while the binding is unconfirmed: it runs work now, so the state to go
      // back to is the working one (Ready would hold the accepted message with nothing to end it).
      if (from.state === 'AwaitingRecovery' && from.resumeState === 'Ready') next.resumeState = 'Running';
      break;
    case 'cli_ready':
    case 'reattach_refused':
    case 'observer_lost':
    case 'node_lost':
    case 'close_requested':
    case 'resume_requested':
    case 'resume_failure_reported':
      break;
    case 'resume_confirmed':
      next.lifetimeDeadline = deadlineFrom(now, event.lifetime);
      next.lifetimeExpired = false;
      if (next.lifetimeDeadline) fx.push({ type: 'schedule', timer: 'lifetime', at: next.lifetimeDeadline });
      break;
    case 'resume_failed':
    case 'resume_timed_out':
      break;
    case 'interrupt_confirmed':
      // The messages the interrupt evidence names got their outcome with it (`applyInterruptOutcome`);
      // every other message keeps its status until its own evidence arrives.
      // Stopping cancels its drain timer on leaving; ClosingAfterWork stops without leaving. While a
      // message the interrupt did not end is in flight, the drain keeps bounding the stop.
      if (from.state === 'ClosingAfterWork' && !from.queue.inFlight) fx.push({ type: 'cancel', timer: 'stop_drain' });
      break;
    case 'process_exited_verified':
      if (from.state === 'Closing') {
        next.exitVerified = true;
        fx.push({ type: 'commit_archive', attempt: 1 });
      } else if (to === 'AwaitingRecovery' && !(from.state === 'AwaitingRecovery' && startAgain)) {
        recover();
      }
      // A start that failed again is retried on the recovery schedule (below), not at once: a CLI
      // that cannot start would otherwise be relaunched in a tight loop.
      break;
    case 'reattached':
      fx.push({ type: 'queue', op: 'recheck_outcomes' });
      break;
    case 'work_drained':
      if (from.state === 'Running' || from.state === 'Stopping') fx.push({ type: 'notify', kind: 'work_finished' });
      if (from.state === 'ClosingAfterWork') fx.push({ type: 'cancel', timer: 'stop_drain' });
      if (!changed) fx.push({ type: 'queue', op: 'wake' });
      break;
    case 'archive_committed':
      break;
    case 'archive_commit_failed':
      fx.push({ type: 'schedule', timer: 'archive_commit_retry', at: at(now, archiveCommitDelay(event.attempt)), attempt: event.attempt });
      break;
    case 'archive_commit_retry_due':
      if (from.exitVerified) fx.push({ type: 'commit_archive', attempt: event.attempt + 1 });
      break;
    case 'close_retry_due':
      // Proven gone: only the archive commit is left, and it has its own retries.
      if (from.exitVerified) break;
      fx.push({ type: 'send_command', kind: 'close', generation: from.observerGeneration });
      fx.push({ type: 'schedule', timer: 'close_retry', at: at(now, closeRetryDelay(event.attempt + 1)), attempt: event.attempt + 1 });
      break;
    case 'node_returned':
      if (from.state === 'AwaitingRecovery') fx.push({ type: 'send_command', kind: resuming ? 'resume' : 'reattach', generation: claim() });
      else if (from.exitVerified) fx.push({ type: 'commit_archive', attempt: 1 });
      else fx.push({ type: 'send_command', kind: 'close', generation: from.observerGeneration });
      break;
    case 'final_save_failed':
      if (event.attempt === 1) fx.push({ type: 'notify', kind: 'final_save_failing' });
      fx.push({ type: 'schedule', timer: 'final_save_retry', at: at(now, finalSaveDelay(event.attempt)), attempt: event.attempt });
      break;
    case 'final_save_retry_due':
      fx.push({ type: 'retry_final_save', attempt: event.attempt });
      break;
    case 'final_save_recovered':
      fx.push({ type: 'cancel', timer: 'final_save_retry' }, { type: 'notify', kind: 'final_save_recovered' });
      break;
    case 'stop_requested':
      if (!changed) pushInterrupt(fx, from, now);
      break;
    case 'lifetime_expired':
      next.lifetimeExpired = true;
      break;
    case 'recovery_retry_due':
      // Never ready: nothing to re-attach to unless a start got through (the agent then answers a
      // repeated start with the running CLI), so the start itself is what is retried.
      // Nor is there for a CLI that never took a message once its process is gone; while it lives the
      // agent answers a start by binding to it (it never starts a second CLI beside a live one).
      fx.push({ type: 'send_command', kind: startAgain ? 'start' : resuming ? 'resume' : 'reattach', generation: claim() });
      fx.push({ type: 'schedule', timer: 'recovery_retry', at: at(now, recoveryDelay(event.attempt + 1, jitter)), attempt: event.attempt + 1 });
      break;
    case 'stop_drain_expired':
      // Unconfirmed stop: messages stay accepted (no false outcome); Esc is harmless if repeated.
      fx.push({ type: 'notify', kind: 'stop_unconfirmed' });
      fx.push({ type: 'send_command', kind: 'interrupt', generation: from.observerGeneration });
      // A stop waits one more drain for that interrupt, then ends (`stop_unresolved`): the CLI may
      // have ended the turn in a way its journal does not show (a follow-up run after the interrupt
      // was never reported ended, and Stopping refuses both Stop and Close; docs/reliability.md).
      if (from.state === 'Stopping') fx.push({ type: 'schedule', timer: 'stop_drain', at: at(now, STOP_DRAIN_MS), attempt: 2 });
      break;
    case 'stop_unresolved':
      fx.push({ type: 'queue', op: 'end_unconfirmed_stop' });
      break;
    default:
      return event satisfies never;
  }

  if (changed) enter(to, { from, next, event, now, jitter, fx });
  return { next, effects: fx };
}

function pushInterrupt(fx: SessionEffect[], from: SessionSnapshot, now: Date): void {
  fx.push({ type: 'send_command', kind: 'interrupt', generation: from.observerGeneration });
  fx.push({ type: 'schedule', timer: 'stop_drain', at: at(now, STOP_DRAIN_MS) });
}

interface EnterCtx {
  from: SessionSnapshot;
  next: SessionSnapshot;
  event: SessionEvent;
  now: Date;
  jitter: number;
  fx: SessionEffect[];
}

function enter(to: SessionState, { from, next, event, now, jitter, fx }: EnterCtx): void {
  switch (to) {
    case 'Ready':
    case 'Running':
      if (to === 'Ready') fx.push({ type: 'queue', op: 'wake' });
      // An expiry noticed while the session could not act is re-raised now that it can.
      if (next.lifetimeExpired) fx.push({ type: 'schedule', timer: 'lifetime', at: now });
      break;
    case 'Stopping':
      pushInterrupt(fx, from, now);
      break;
    case 'AwaitingRecovery':
      // A binding change stops the old final-save retry; the re-check after reattach takes over.
      fx.push({ type: 'cancel', timer: 'final_save_retry' });
      fx.push({ type: 'schedule', timer: 'recovery_retry', at: new Date(now.getTime() + recoveryDelay(0, jitter)), attempt: 0 });
      break;
    case 'Closing':
      next.exitVerified = false;
      fx.push({ type: 'send_command', kind: 'close', generation: from.observerGeneration });
      fx.push({ type: 'schedule', timer: 'close_retry', at: at(now, closeRetryDelay(0)), attempt: 0 });
      fx.push({ type: 'cancel', timer: 'lifetime' });
      fx.push({ type: 'queue', op: 'fail_undelivered', reason: 'session_closed' });
      break;
    case 'Archived':
      next.lifetimeDeadline = null;
      next.lifetimeExpired = false;
      next.exitVerified = false;
      // From ResumeFailed nothing is announced: the archive record never changed.
      if (from.state === 'Closing')
        fx.push({ type: 'cancel', timer: 'archive_commit_retry' }, { type: 'cancel', timer: 'close_retry' }, { type: 'notify', kind: 'closed' });
      return;
    case 'Resuming':
      next.lifetimeDeadline = null;
      next.lifetimeExpired = false;
      // Always an exact resume by native id: an archived record is never "started" afresh.
      next.observerGeneration += 1;
      fx.push({ type: 'send_command', kind: 'resume', generation: next.observerGeneration });
      // The attempt is bounded; a return from AwaitingRecovery keeps the bound it started with.
      if (from.state === 'Archived') fx.push({ type: 'schedule', timer: 'resume_timeout', at: at(now, RESUME_ANSWER_MS) });
      return;
    case 'ResumeFailed':
      fx.push({
        type: 'notify',
        kind: 'resume_failed',
        detail: event.type === 'resume_failed' ? event.cause : event.type === 'resume_timed_out' ? RESUME_NO_ANSWER : 'process_exited',
      });
      fx.push({ type: 'queue', op: 'fail_undelivered', reason: 'resume_failed' });
      return;
    case 'Starting':
    case 'ClosingAfterWork':
      break;
    default:
      to satisfies never;
  }
  fx.push(cardUpdate);
}

const cardUpdate: SessionEffect = { type: 'notify', kind: 'card_update' };
