/**
 * Retry delays. All are fixed tables (no unbounded exponential growth) so a stuck session costs
 * at most one cheap attempt a minute, and tests can assert exact values.
 */

const SECOND = 1000;

/**
 * Final-save retry (SPEC §3 "Final-save failure"): only the write of an already received final is
 * retried, after 1, 2, 4, 8, 16, 30 s, then every 30 s. `attempt` is the 1-based number of the
 * retry about to be scheduled (attempt 1 follows the first failure). The values are the product's.
 */
const FINAL_SAVE_DELAYS_S = [1, 2, 4, 8, 16, 30] as const;
const FINAL_SAVE_STEADY_S = 30;

export function finalSaveDelay(attempt: number): number {
  assertAttempt(attempt, 1);
  const s = FINAL_SAVE_DELAYS_S[attempt - 1] ?? FINAL_SAVE_STEADY_S;
  return s * SECOND;
}

/**
 * Exact re-attach backoff while AwaitingRecovery. SPEC leaves the values to us ("bounded internal
 * parameters"). Why these: an agent restart or a short network blip reconnects within a second or
 * two, so the first tries are quick; a rebooting node takes tens of seconds; after that a node is
 * really away and one try a minute is cheap for the agent and the hub (a reconnecting node also
 * triggers an immediate try through `node_returned`, so the steady delay only bounds waste, not
 * recovery speed). Retries never stop: the session stays AwaitingRecovery, never "lost".
 */
const RECOVERY_DELAYS_S = [1, 2, 5, 10, 30, 60] as const;
const RECOVERY_STEADY_S = 60;
/** ±20 %: spreads the many sessions of one node that lost their observer at the same moment. */
const RECOVERY_JITTER = 0.2;

/**
 * Delay before recovery attempt `attempt` (0-based: attempt 0 is the first try after entering
 * AwaitingRecovery). `jitter` is a random number in [0, 1) supplied by the caller; 0.5 means none.
 */
export function recoveryDelay(attempt: number, jitter: number): number {
  assertAttempt(attempt, 0);
  if (!(jitter >= 0 && jitter < 1)) throw new RangeError(`jitter must be in [0, 1), got ${jitter}`);
  const base = (RECOVERY_DELAYS_S[attempt] ?? RECOVERY_STEADY_S) * SECOND;
  return Math.round(base * (1 + (jitter * 2 - 1) * RECOVERY_JITTER));
}

/** Upper bound of any recovery delay, for services that size timeouts. */
export const MAX_RECOVERY_DELAY_MS = Math.round(RECOVERY_STEADY_S * SECOND * (1 + RECOVERY_JITTER));

/**
 * How long Stop waits for the CLI to confirm the interrupt before telling the user it is
 * unconfirmed. Both CLIs journal an interrupt within about 0.2 s; 15 s leaves room for a loaded
 * machine without leaving the user guessing.
 */
export const STOP_DRAIN_MS = 15 * SECOND;

/**
 * The bound of one exact resume: the agent answers within its own 30 s wait for the CLI's prompt
 * (plus a journal restore), so three minutes without an answer means none is coming (the computer
 * went away, the command could not be run). The attempt then ends as ResumeFailed with that cause;
 * the timer keeps running while a resume waits in AwaitingRecovery, so recovery cannot prolong it.
 */
export const RESUME_ANSWER_MS = 180 * SECOND;
/** The cause the one `resume_failed` notice tells when that bound passes. */
export const RESUME_NO_ANSWER = `no answer from the computer within ${RESUME_ANSWER_MS / 60_000} minutes`;

/**
 * A close not proven within this wait is asked for again: the agent's close answers within its own
 * exit wait and escalation (well under a minute), so one minute, then every minute. A close is
 * never assumed: the session stays Closing until the node verifies the exit (SPEC: Closing → Archived).
 */
const CLOSE_RETRY_S = 60;
export function closeRetryDelay(attempt: number): number {
  assertAttempt(attempt, 0);
  return CLOSE_RETRY_S * SECOND;
}

/** Archive commit retries reuse the final-save table: same kind of failure (our own storage). */
export const archiveCommitDelay = finalSaveDelay;

/**
 * Waits before a message the agent refused with `typed: false` is handed over again, by the number of
 * refusals of that message while the session stayed at the same version (1-based). The first wait is
 * short (a CLI that was not ready a moment ago often is now), the steady one bounds the cost of a
 * session that keeps refusing without any transition to one hand-over every 15 s. Any transition of
 * the session ends the wait at once (engine README, Decisions).
 */
const UNTYPED_RETRY_DELAYS_S = [1, 2, 4, 8, 15] as const;
const UNTYPED_RETRY_STEADY_S = 15;
export function untypedRetryDelay(refusals: number): number {
  return (UNTYPED_RETRY_DELAYS_S[Math.max(0, refusals - 1)] ?? UNTYPED_RETRY_STEADY_S) * SECOND;
}

/** Whether a `typed: false` answer is about the session's current observer (only those are counted and waited on). */
export const untypedFromCurrentObserver = (commandGeneration: number | null, observerGeneration: number): boolean =>
  commandGeneration === null || commandGeneration === observerGeneration;

/**
 * The wait after a `typed: false` answer. An answer about an older observer generation than the
 * session's current one is no reason to wait (that observer is gone; the next hand-over carries the
 * new generation): no refusal counted, no wait. Otherwise this refusal is counted after `earlier`
 * ones at the same session version and waits `untypedRetryDelay`. `commandGeneration` null (not
 * readable from the stored command) counts as the current observer.
 */
export function untypedWait(o: { commandGeneration: number | null; observerGeneration: number; earlier: number }): { refusals: number; waitMs: number } {
  if (!untypedFromCurrentObserver(o.commandGeneration, o.observerGeneration)) return { refusals: 0, waitMs: 0 };
  const refusals = o.earlier + 1;
  return { refusals, waitMs: untypedRetryDelay(refusals) };
}

function assertAttempt(attempt: number, min: number): void {
  if (!Number.isInteger(attempt) || attempt < min) throw new RangeError(`attempt must be an integer >= ${min}, got ${attempt}`);
}
