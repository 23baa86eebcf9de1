/**
 * Scheduled and recurring messages (issue 33). Pure: what one due occurrence does. When the next
 * one is and which schedules may be made needs a cron library and the zone database, so it lives in
 * services/sessions/schedule-time.ts; the engine (engine/schedules.ts) does the I/O.
 */
export type ScheduleKind = 'once' | 'recurring';
export type ScheduleIfBusy = 'wait' | 'skip';
export const SCHEDULE_IF_BUSY = ['wait', 'skip'] as const;

/** The longest a message may be scheduled ahead (a year): further is more likely a typo than a plan. */
export const SCHEDULE_MAX_AHEAD_MS = 366 * 24 * 3_600_000;
/** At most this many active schedules per session. */
export const SCHEDULES_PER_SESSION = 20;

export interface ScheduleRunFacts {
  kind: ScheduleKind;
  ifBusy: ScheduleIfBusy;
  resumeIfClosed: boolean;
  /** `open`: the session takes messages (maybe after its start); `closed`: archived (or its resume failed); `gone`: deleted. */
  session: 'open' | 'closed' | 'gone';
  /** A turn is running, or this schedule's previous message has not reached its end. */
  busy: boolean;
}

export type ScheduleRunDecision =
  /** Queue the text as a message now (a once message simply queues behind whatever waits). */
  | { do: 'send' }
  /** Resume the closed session exactly, then queue the text (it is delivered once the CLI is ready). */
  | { do: 'resume_then_send' }
  /** Leave the occurrence due; look again on the next pass. */
  | { do: 'wait' }
  /** This occurrence is not sent; the next one is computed. */
  | { do: 'skip'; reason: 'busy' | 'closed' }
  /** The schedule ends without sending (once on a closed session, or the session is gone). */
  | { do: 'end'; reason: 'closed' | 'gone' };

/** One due occurrence. Table-tested over every combination (schedule.test.ts). */
export function decideScheduleRun(f: ScheduleRunFacts): ScheduleRunDecision {
  if (f.session === 'gone') return { do: 'end', reason: 'gone' };
  if (f.session === 'closed') {
    if (f.resumeIfClosed) return { do: 'resume_then_send' };
    return f.kind === 'once' ? { do: 'end', reason: 'closed' } : { do: 'skip', reason: 'closed' };
  }
  if (f.kind === 'recurring' && f.busy) return f.ifBusy === 'skip' ? { do: 'skip', reason: 'busy' } : { do: 'wait' };
  return { do: 'send' };
}
