import { describe, expect, it } from 'vitest';
import { sessionTitle } from './session-bits.tsx';

const t = (key: string) => key;

describe('sessionTitle', () => {
  it('uses the first prompt when the CLI gave no title, before the folder name', () => {
    expect(sessionTitle({ title: null, firstPrompt: 'fix the  login\nbug', folder: '/work/app' }, t)).toBe('fix the login bug');
    expect(sessionTitle({ title: 'Login fix', firstPrompt: 'fix the login bug', folder: '/work/app' }, t)).toBe('Login fix');
    expect(sessionTitle({ title: null, firstPrompt: null, folder: '/work/app' }, t)).toBe('app');
    expect(sessionTitle({ title: null, firstPrompt: 'x'.repeat(200), folder: '/work/app' }, t)).toBe(`${'x'.repeat(79)}…`);
  });
});
