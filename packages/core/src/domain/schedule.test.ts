import { describe, expect, it } from 'vitest';
import { checkScheduleSpec, decideScheduleRun, nextAfterOccurrence, nextCronRun, type ScheduleRunDecision, type ScheduleRunFacts } from './schedule.ts';

describe('decideScheduleRun: every combination', () => {
  const expected = (f: ScheduleRunFacts): ScheduleRunDecision => {
    if (f.session === 'gone') return { do: 'end', reason: 'gone' };
    if (f.session === 'closed')
      return f.resumeIfClosed ? { do: 'resume_then_send' } : f.kind === 'once' ? { do: 'end', reason: 'closed' } : { do: 'skip', reason: 'closed' };
    if (f.kind === 'once') return { do: 'send' };
    if (!f.busy) return { do: 'send' };
    return f.ifBusy === 'skip' ? { do: 'skip', reason: 'busy' } : { do: 'wait' };
  };
  const rows: [ScheduleRunFacts, ScheduleRunDecision][] = [];
  for (const kind of ['once', 'recurring'] as const)
    for (const ifBusy of ['wait', 'skip'] as const)
      for (const resumeIfClosed of [false, true])
        for (const session of ['open', 'closed', 'gone'] as const)
          for (const busy of [false, true]) {
            const f = { kind, ifBusy, resumeIfClosed, session, busy };
            rows.push([f, expected(f)]);
          }
  it.each(rows)('%o → %o', (f, d) => {
    expect(decideScheduleRun(f)).toEqual(d);
  });
  it('covers 48 combinations', () => expect(rows).toHaveLength(48));
  // Spelled out, the rows the issue names.
  it('a recurring message skips (or waits) while a turn runs; a once message queues behind it', () => {
    expect(decideScheduleRun({ kind: 'recurring', ifBusy: 'skip', resumeIfClosed: false, session: 'open', busy: true })).toEqual({
      do: 'skip',
      reason: 'busy',
    });
    expect(decideScheduleRun({ kind: 'recurring', ifBusy: 'wait', resumeIfClosed: false, session: 'open', busy: true })).toEqual({ do: 'wait' });
    expect(decideScheduleRun({ kind: 'once', ifBusy: 'skip', resumeIfClosed: false, session: 'open', busy: true })).toEqual({ do: 'send' });
    expect(decideScheduleRun({ kind: 'once', ifBusy: 'wait', resumeIfClosed: true, session: 'closed', busy: false })).toEqual({ do: 'resume_then_send' });
  });
});

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
