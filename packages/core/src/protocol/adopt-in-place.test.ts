import { describe, expect, it } from 'vitest';
import { OPTIONAL_COMMANDS, parseCommandResult, parseSessionCommand, parseSessionEvent, zCommandType } from './index.ts';

// `adopt_in_place` (docs/handoff.md): validated like every session command, sent only to agents that
// list it, answered like a resume, its refusals carried with their machine codes.

const valid = {
  generation: 3,
  executor: 'claude',
  folder: '/home/ada/work',
  nativeSessionId: '0b9a4c1e-1111-4222-8333-944455556666',
  pid: 4242,
  startTime: '123456',
};

describe('adopt_in_place', () => {
  it('is an optional command type', () => {
    expect(zCommandType.options).toContain('adopt_in_place');
    expect(OPTIONAL_COMMANDS).toContain('adopt_in_place');
  });

  it('takes the session, the exact pid and its start; nothing less', () => {
    expect(parseSessionCommand('adopt_in_place', valid)).toEqual({ ok: true, payload: valid });
    for (const key of ['pid', 'startTime', 'nativeSessionId', 'generation', 'executor', 'folder'] as const) {
      const { [key]: _, ...rest } = valid;
      expect(parseSessionCommand('adopt_in_place', rest).ok).toBe(false);
    }
    expect(parseSessionCommand('adopt_in_place', { ...valid, pid: 0 }).ok).toBe(false);
    expect(parseSessionCommand('adopt_in_place', { ...valid, startTime: '' }).ok).toBe(false);
  });

  it('is answered like a launch, its refusals with their codes', () => {
    const r = parseCommandResult({ command: 'adopt_in_place', ok: false, code: 'pane_gone', error: 'not adopted: its tmux pane %3 is gone' });
    expect(r).toMatchObject({ ok: true, result: { kind: 'launch', command: 'adopt_in_place', code: 'pane_gone' } });
    for (const code of ['not_in_tmux', 'other_user', 'pane_gone', 'holder_changed'] as const) {
      const e = parseSessionEvent('resume_failed', { reason: `not adopted (${code})`, code });
      expect(e.ok && e.event.payload).toMatchObject({ code });
    }
  });
});
