import { describe, expect, it } from 'vitest';
import { inQuietHours, NO_PUSH_REASONS, PUSH_EVENT_KINDS, PUSH_MODES, type PushRouteFacts, routePush } from './push-routing.ts';

/**
 * Every (channel state, event) pair: 8 events × page visible × Telegram × devices × kind switch ×
 * mute × quiet hours × mode × answered = 2,048 rows. The expectation is written as the issue says it,
 * one sentence per condition, not by calling the rule's own helpers.
 */
const bools = [false, true] as const;
const QUIET = { start: 22 * 60, end: 7 * 60 };
const rows: { facts: PushRouteFacts; push: boolean; telegram: boolean }[] = [];
for (const event of PUSH_EVENT_KINDS)
  for (const pageVisible of bools)
    for (const telegram of bools)
      for (const pushDevices of bools)
        for (const kindOff of bools)
          for (const sessionMuted of bools)
            for (const quiet of bools)
              for (const mode of PUSH_MODES)
                for (const alreadyAnswered of bools) {
                  const facts: PushRouteFacts = {
                    event,
                    pageVisible,
                    telegram,
                    pushDevices,
                    sessionMuted,
                    alreadyAnswered,
                    prefs: { mode, kindsOff: kindOff ? [event] : [], quietHours: QUIET },
                    // 23:30 is inside 22:00–07:00; 12:00 is not.
                    minuteOfDay: quiet ? 23 * 60 + 30 : 12 * 60,
                  };
                  const isPrompt = event === 'prompt_waiting' || event === 'dialog_waiting';
                  // No push for a prompt a hook already answered.
                  const answered = isPrompt && alreadyAnswered;
                  const push =
                    !answered &&
                    pushDevices && // somewhere to send it
                    !kindOff && // the kind is switched on
                    !sessionMuted && // the session is not muted
                    !pageVisible && // the user is not looking at the session
                    !quiet && // not in quiet hours
                    !(mode === 'push_when_telegram_off' && telegram); // the chat already rang
                  rows.push({ facts, push, telegram: telegram && !answered });
                }

describe('routePush: one decision per event over the channels', () => {
  it('covers every pair', () => {
    expect(rows).toHaveLength(PUSH_EVENT_KINDS.length * 2 ** 8);
    // Both outcomes occur for every event, so no event is routed by a constant.
    for (const event of PUSH_EVENT_KINDS) {
      const mine = rows.filter((r) => r.facts.event === event);
      expect(new Set(mine.map((r) => r.push))).toEqual(new Set([true, false]));
    }
  });

  it.each(rows.map((r, i) => ({ i, ...r })))('row $i', ({ facts, push, telegram }) => {
    const got = routePush(facts);
    expect({ push: got.push, telegram: got.telegram }).toEqual({ push, telegram });
    if (!got.push) expect(NO_PUSH_REASONS).toContain(got.reason);
  });

  it('names the first reason that holds', () => {
    const base: PushRouteFacts = {
      event: 'prompt_waiting',
      pageVisible: false,
      telegram: true,
      pushDevices: true,
      sessionMuted: false,
      alreadyAnswered: false,
      prefs: { mode: 'telegram_and_push', kindsOff: [], quietHours: null },
      minuteOfDay: 0,
    };
    expect(routePush(base)).toEqual({ push: true, telegram: true });
    expect(routePush({ ...base, alreadyAnswered: true, pushDevices: false })).toEqual({ push: false, telegram: false, reason: 'answered' });
    // A turn's end cannot be "answered": the flag means nothing there.
    expect(routePush({ ...base, event: 'turn_completed', alreadyAnswered: true })).toEqual({ push: true, telegram: true });
    expect(routePush({ ...base, pushDevices: false, sessionMuted: true })).toMatchObject({ reason: 'no_devices' });
    expect(routePush({ ...base, prefs: { ...base.prefs, kindsOff: ['prompt_waiting'] }, sessionMuted: true })).toMatchObject({ reason: 'kind_off' });
    expect(routePush({ ...base, sessionMuted: true, pageVisible: true })).toMatchObject({ reason: 'muted' });
    expect(routePush({ ...base, pageVisible: true })).toMatchObject({ reason: 'page_visible' });
    expect(routePush({ ...base, prefs: { ...base.prefs, mode: 'push_when_telegram_off' } })).toMatchObject({ reason: 'telegram_covers' });
    expect(routePush({ ...base, telegram: false, prefs: { ...base.prefs, mode: 'push_when_telegram_off' } })).toEqual({ push: true, telegram: false });
  });
});

describe('quiet hours', () => {
  it.each([
    { q: { start: 22 * 60, end: 7 * 60 }, minute: 22 * 60, quiet: true },
    { q: { start: 22 * 60, end: 7 * 60 }, minute: 0, quiet: true },
    { q: { start: 22 * 60, end: 7 * 60 }, minute: 7 * 60 - 1, quiet: true },
    { q: { start: 22 * 60, end: 7 * 60 }, minute: 7 * 60, quiet: false },
    { q: { start: 22 * 60, end: 7 * 60 }, minute: 21 * 60 + 59, quiet: false },
    { q: { start: 13 * 60, end: 14 * 60 }, minute: 13 * 60 + 30, quiet: true },
    { q: { start: 13 * 60, end: 14 * 60 }, minute: 14 * 60, quiet: false },
    { q: { start: 13 * 60, end: 14 * 60 }, minute: 12 * 60, quiet: false },
    { q: { start: 600, end: 600 }, minute: 600, quiet: false },
    { q: null, minute: 600, quiet: false },
  ])('$q at $minute → $quiet', ({ q, minute, quiet }) => {
    expect(inQuietHours(q, minute)).toBe(quiet);
  });
});
