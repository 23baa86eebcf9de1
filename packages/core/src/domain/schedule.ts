import { Cron } from 'croner';

/**
 * Scheduled and recurring messages (issue 33). Pure: what one due occurrence does, when the next
 * one is, and which schedules may be made. The engine (engine/schedules.ts) does the I/O.
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

export type ScheduleSpecRefusal = 'bad_cron' | 'cron_seconds' | 'bad_time_zone' | 'in_past' | 'too_far' | 'never_runs';

/** Whether `tz` is an IANA zone this runtime knows. */
export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * The first occurrence after `after` of a five-field cron in `tz` (croner: standard cron with
 * `L`, `#`, ranges, steps and names; the day of month and day of week are OR-ed as Vixie cron does).
 */
export function nextCronRun(cron: string, tz: string, after: Date): Date | null {
  return new Cron(cron, { timezone: tz, mode: '5-part', paused: true }).nextRun(after);
}

/** Checks a schedule before it is stored; returns its first due time or the refusal. */
export function checkScheduleSpec(
  spec: { kind: 'once'; runAt: Date; timeZone: string } | { kind: 'recurring'; cron: string; timeZone: string },
  now: Date,
): { ok: true; firstRunAt: Date } | { ok: false; reason: ScheduleSpecRefusal } {
  if (!validTimeZone(spec.timeZone)) return { ok: false, reason: 'bad_time_zone' };
  if (spec.kind === 'once') {
    const t = spec.runAt.getTime();
    if (!Number.isFinite(t) || t <= now.getTime()) return { ok: false, reason: 'in_past' };
    if (t - now.getTime() > SCHEDULE_MAX_AHEAD_MS) return { ok: false, reason: 'too_far' };
    return { ok: true, firstRunAt: spec.runAt };
  }
  const fields = spec.cron.trim().split(/\s+/);
  // Seconds-level schedules would flood a session; `@hourly`-style nicknames are taken.
  if (fields.length === 6 || fields.length === 7) return { ok: false, reason: 'cron_seconds' };
  if (!(fields.length === 5 || (fields.length === 1 && fields[0]?.startsWith('@')))) return { ok: false, reason: 'bad_cron' };
  let first: Date | null;
  try {
    first = nextCronRun(spec.cron.trim(), spec.timeZone, now);
  } catch {
    return { ok: false, reason: 'bad_cron' };
  }
  if (!first || first.getTime() - now.getTime() > SCHEDULE_MAX_AHEAD_MS) return { ok: false, reason: 'never_runs' };
  return { ok: true, firstRunAt: first };
}

/**
 * The next due time after an occurrence of a recurring schedule ran or was skipped. Occurrences
 * missed while no engine ran are not replayed one by one: the next is the first after `now`
 * (at most one catch-up firing, the one that was due).
 */
export function nextAfterOccurrence(cron: string, tz: string, occurrence: Date, now: Date): Date | null {
  const from = occurrence.getTime() > now.getTime() ? occurrence : now;
  return nextCronRun(cron, tz, from);
}
