import { Cron } from 'croner';
import { SCHEDULE_MAX_AHEAD_MS } from '../../domain/schedule.ts';

/**
 * When scheduled messages are due (issue 33): cron occurrences in a time zone, DST included, with
 * croner (day of month and day of week OR-ed, as Vixie cron), and the checks a schedule passes
 * before it is stored. Not in the domain: it needs a library and the runtime's zone database.
 */
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
