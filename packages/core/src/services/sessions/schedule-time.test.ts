import { describe, expect, it } from 'vitest';
import { checkScheduleSpec, nextAfterOccurrence, nextCronRun } from './schedule-time.ts';

describe('schedule specs', () => {
  const now = new Date('2026-12-07T10:00:00Z');
  it('once: in the future, within a year', () => {
    expect(checkScheduleSpec({ kind: 'once', runAt: new Date('2026-12-07T10:05:00Z'), timeZone: 'UTC' }, now)).toEqual({
      ok: true,
      firstRunAt: new Date('2026-12-07T10:05:00Z'),
    });
    expect(checkScheduleSpec({ kind: 'once', runAt: new Date('2026-12-07T09:59:00Z'), timeZone: 'UTC' }, now)).toEqual({ ok: false, reason: 'in_past' });
    expect(checkScheduleSpec({ kind: 'once', runAt: new Date('2028-12-07T10:00:00Z'), timeZone: 'UTC' }, now)).toEqual({ ok: false, reason: 'too_far' });
    expect(checkScheduleSpec({ kind: 'once', runAt: new Date('2026-12-07T11:00:00Z'), timeZone: 'Mars/Olympus' }, now)).toEqual({
      ok: false,
      reason: 'bad_time_zone',
    });
  });
  it('recurring: five fields in the given zone; seconds and nonsense refused', () => {
    // 09:00 on weekdays in Berlin (UTC+1 in December): Monday 7 Dec 10:00 UTC is past it, so Tuesday 08:00 UTC.
    expect(checkScheduleSpec({ kind: 'recurring', cron: '0 9 * * 1-5', timeZone: 'Europe/Berlin' }, now)).toEqual({
      ok: true,
      firstRunAt: new Date('2026-12-08T08:00:00Z'),
    });
    expect(checkScheduleSpec({ kind: 'recurring', cron: '*/5 * * * * *', timeZone: 'UTC' }, now)).toEqual({ ok: false, reason: 'cron_seconds' });
    expect(checkScheduleSpec({ kind: 'recurring', cron: 'every day', timeZone: 'UTC' }, now)).toEqual({ ok: false, reason: 'bad_cron' });
    expect(checkScheduleSpec({ kind: 'recurring', cron: '61 * * * *', timeZone: 'UTC' }, now)).toEqual({ ok: false, reason: 'bad_cron' });
    expect(checkScheduleSpec({ kind: 'recurring', cron: '0 0 30 2 *', timeZone: 'UTC' }, now)).toEqual({ ok: false, reason: 'never_runs' });
    expect(checkScheduleSpec({ kind: 'recurring', cron: '@hourly', timeZone: 'UTC' }, now)).toEqual({ ok: true, firstRunAt: new Date('2026-12-07T11:00:00Z') });
  });
  it('the next occurrence: after the one that ran, or after now when occurrences were missed (one catch-up only)', () => {
    const occ = new Date('2026-12-07T10:00:00Z');
    expect(nextAfterOccurrence('*/15 * * * *', 'UTC', occ, new Date('2026-12-07T10:00:01Z'))).toEqual(new Date('2026-12-07T10:15:00Z'));
    // The engine was down for two hours: the next is the first after now, not 10:15, 10:30, …
    expect(nextAfterOccurrence('*/15 * * * *', 'UTC', occ, new Date('2026-12-07T12:07:00Z'))).toEqual(new Date('2026-12-07T12:15:00Z'));
    expect(nextCronRun('30 2 * * *', 'America/New_York', new Date('2026-12-07T00:00:00Z'))).toEqual(new Date('2026-12-07T07:30:00Z'));
  });
});
