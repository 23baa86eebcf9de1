import { describe, expect, it } from 'vitest';
import { translator } from '../i18n/catalog.ts';
import { lifecycleNoticeCurrent, queueNoticeCurrent } from './page-notices.ts';
import { lifetimeLeft, sessionTitle } from './session-bits.tsx';

const t = (key: string) => key;

describe('sessionTitle', () => {
  it('uses the first prompt when the CLI gave no title, before the folder name', () => {
    expect(sessionTitle({ title: null, firstPrompt: 'fix the  login\nbug', folder: '/work/app' }, t)).toBe('fix the login bug');
    expect(sessionTitle({ title: 'Login fix', firstPrompt: 'fix the login bug', folder: '/work/app' }, t)).toBe('Login fix');
    expect(sessionTitle({ title: null, firstPrompt: null, folder: '/work/app' }, t)).toBe('app');
    expect(sessionTitle({ title: null, firstPrompt: 'x'.repeat(200), folder: '/work/app' }, t)).toBe(`${'x'.repeat(79)}…`);
  });
});

describe('lifetimeLeft', () => {
  const en = translator('en');
  it('a closed session has no time left, not "no limit"', () => {
    expect(lifetimeLeft({ state: 'Archived', lifetimeDeadline: null, lifetimeExpired: false }, Date.now(), en)).toBe('none (the session is closed)');
    expect(
      lifetimeLeft({ state: 'ResumeFailed', lifetimeDeadline: new Date(Date.now() + 3_600_000).toISOString(), lifetimeExpired: false }, Date.now(), en),
    ).toBe('none (the session is closed)');
    expect(lifetimeLeft({ state: 'Ready', lifetimeDeadline: null, lifetimeExpired: false }, Date.now(), en)).toBe('no limit');
  });

  it('right after a resume set a 12 h deadline, a page clock up to 30 s old does not show more than 12 h', () => {
    const deadline = new Date(Date.now() + 12 * 3_600_000).toISOString();
    expect(lifetimeLeft({ state: 'Ready', lifetimeDeadline: deadline, lifetimeExpired: false }, Date.now() - 29_000, en)).toBe('12 h 0 min');
  });
});

describe('page notices', () => {
  it('"Requested." holds until the session moves past the version the request produced', () => {
    expect(lifecycleNoticeCurrent({ version: 4 }, { version: 3 })).toBe(true);
    expect(lifecycleNoticeCurrent({ version: 4 }, { version: 4 })).toBe(true);
    expect(lifecycleNoticeCurrent({ version: 4 }, { version: 5 })).toBe(false);
  });

  it('"Stored in the queue" holds while the message waits, not after the CLI took it or it ended', () => {
    expect(queueNoticeCurrent('m2', [{ id: 'm2', status: 'pending' }])).toBe(true);
    expect(queueNoticeCurrent('m2', [{ id: 'm2', status: 'leased' }])).toBe(true);
    expect(queueNoticeCurrent('m2', [{ id: 'm2', status: 'accepted' }])).toBe(false);
    expect(queueNoticeCurrent('m2', [{ id: 'm2', status: 'completed' }])).toBe(false);
    expect(queueNoticeCurrent('m2', [])).toBe(true);
  });
});
