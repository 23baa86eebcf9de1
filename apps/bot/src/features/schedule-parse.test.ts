import { describe, expect, it } from 'vitest';
import { parseSchedule, zonedTime } from './schedule-parse.ts';

const now = new Date('2026-12-07T10:00:00Z');
describe('/schedule parsing', () => {
  it.each([
    ['in 30m check the build', { ok: true, kind: 'once', runAt: new Date('2026-12-07T10:30:00Z'), text: 'check the build', resumeIfClosed: false }],
    ['in 1h30m! resume and go', { ok: true, kind: 'once', runAt: new Date('2026-12-07T11:30:00Z'), text: 'resume and go', resumeIfClosed: true }],
    ['in 2d\nmulti\nline', { ok: true, kind: 'once', runAt: new Date('2026-12-09T10:00:00Z'), text: 'multi\nline', resumeIfClosed: false }],
    // Berlin is UTC+1 in December: 18:30 there is 17:30 UTC, today.
    ['at 18:30 evening run', { ok: true, kind: 'once', runAt: new Date('2026-12-07T17:30:00Z'), text: 'evening run', resumeIfClosed: false }],
    // 09:00 Berlin has passed (08:00 UTC < 10:00 UTC): tomorrow.
    ['at 9:00 morning', { ok: true, kind: 'once', runAt: new Date('2026-12-08T08:00:00Z'), text: 'morning', resumeIfClosed: false }],
    ['at 2026-12-24 09:00 xmas', { ok: true, kind: 'once', runAt: new Date('2026-12-24T08:00:00Z'), text: 'xmas', resumeIfClosed: false }],
    ['every 0 9 * * 1-5 standup notes', { ok: true, kind: 'recurring', cron: '0 9 * * 1-5', text: 'standup notes', resumeIfClosed: false }],
    ['every @daily! summary', { ok: true, kind: 'recurring', cron: '@daily', text: 'summary', resumeIfClosed: true }],
    ['every */5 * * * * * spam', { ok: true, kind: 'recurring', cron: '*/5 * * * * *', text: 'spam', resumeIfClosed: false }],
    ['every 0 9 * * mon-fri standup', { ok: true, kind: 'recurring', cron: '0 9 * * mon-fri', text: 'standup', resumeIfClosed: false }],
    ['in 30m', { ok: false, error: 'no_text' }],
    ['at 25:00 x', { ok: false, error: 'bad_time' }],
    ['in 0m x', { ok: false, error: 'bad_time' }],
    ['tomorrow do it', { ok: false, error: 'usage' }],
    ['', { ok: false, error: 'usage' }],
  ])('%j', (input, want) => {
    expect(parseSchedule(input, now, 'Europe/Berlin')).toEqual(want);
  });
  it('wall-clock times across a DST change', () => {
    // New York: EDT (UTC-4) in July, EST (UTC-5) in December.
    expect(zonedTime(2026, 7, 1, 9, 0, 'America/New_York')).toEqual(new Date('2026-07-01T13:00:00Z'));
    expect(zonedTime(2026, 12, 1, 9, 0, 'America/New_York')).toEqual(new Date('2026-12-01T14:00:00Z'));
  });
});
