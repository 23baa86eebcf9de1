import { RESUME_ANSWER_MS, STOP_DRAIN_MS } from '@bria/core/domain';
import { describe, expect, it } from 'vitest';
import { LOCALES, translator } from '../i18n/catalog.ts';
import { waitingText, type WaitingInput } from './waiting-text.ts';

const STATES = ['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork', 'AwaitingRecovery', 'Closing', 'Archived', 'ResumeFailed'] as const;
const WITH_ACTIONS = new Set(['Ready', 'Running', 'Archived']);

/** Every variant the page can show: each state, and AwaitingRecovery for each state it returns to. */
const variants: WaitingInput[] = [
  ...STATES.flatMap((state) => [false, true].flatMap((dialog) => [true, false].map((nodeOnline) => ({ state, resumeState: null, dialog, nodeOnline })))),
  ...(['Starting', 'Resuming', 'Ready', 'Running', 'Stopping', 'ClosingAfterWork'] as const).map((resumeState) => ({
    state: 'AwaitingRecovery' as const,
    resumeState,
    dialog: false,
  })),
];

describe('what a state without buttons waits for', () => {
  it.each(LOCALES)('%s: every waiting state names what it waits for; none "changes on its own"', (locale) => {
    const t = translator(locale);
    for (const v of variants) {
      const w = waitingText(v);
      if (WITH_ACTIONS.has(v.state)) {
        expect(w, v.state).toBeNull();
        continue;
      }
      expect(w, JSON.stringify(v)).not.toBeNull();
      const text = t(w!.key, w!.vars);
      expect(text, w!.key).not.toMatch(/\{\w+\}/);
      expect(text).not.toMatch(/on its own|сменится сам/i);
    }
  });

  it('names the bound of each bounded wait, and the user as the one awaited on a dialog', () => {
    const en = translator('en');
    const say = (v: WaitingInput) => {
      const w = waitingText(v)!;
      return en(w.key, w.vars);
    };
    expect(say({ state: 'Resuming', resumeState: null, dialog: false })).toContain(`${RESUME_ANSWER_MS / 60_000} minutes`);
    expect(say({ state: 'AwaitingRecovery', resumeState: 'Resuming', dialog: false })).toContain(`${RESUME_ANSWER_MS / 60_000} minutes`);
    expect(say({ state: 'Stopping', resumeState: null, dialog: false })).toContain(`${STOP_DRAIN_MS / 1000} seconds`);
    expect(say({ state: 'Starting', resumeState: null, dialog: true })).toMatch(/Waiting for you/);
    expect(say({ state: 'AwaitingRecovery', resumeState: 'Starting', dialog: true })).toMatch(/Waiting for you/);
    expect(say({ state: 'AwaitingRecovery', resumeState: 'Running', dialog: false, nodeOnline: false })).toMatch(/come back online/);
    expect(say({ state: 'AwaitingRecovery', resumeState: 'Running', dialog: false })).toMatch(/at least once a minute/);
    expect(translator('ru')(waitingText({ state: 'Resuming', resumeState: null, dialog: false })!.key, { minutes: 3 })).toContain('3 мин.');
  });
});
