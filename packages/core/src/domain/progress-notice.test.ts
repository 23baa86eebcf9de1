import { describe, expect, it } from 'vitest';
import { progressOf } from './progress-notice.ts';
import { SESSION_STATES } from './session-types.ts';

describe('progress notices, every move', () => {
  const moves = SESSION_STATES.flatMap((from) => SESSION_STATES.map((to) => ({ from, to })));
  it.each(moves)('$from → $to', ({ from, to }) => {
    const expected =
      from === to
        ? null
        : to === 'AwaitingRecovery'
          ? { topic: 'recovery', phase: 'started' }
          : from === 'AwaitingRecovery'
            ? { topic: 'recovery', phase: 'done' }
            : to === 'Stopping'
              ? { topic: 'stop', phase: 'started' }
              : from === 'Stopping'
                ? { topic: 'stop', phase: 'done' }
                : to === 'Closing'
                  ? { topic: 'close', phase: 'started' }
                  : null;
    expect(progressOf(from, to)).toEqual(expected);
  });

  it.each([
    ['Running', 'AwaitingRecovery', { topic: 'recovery', phase: 'started' }],
    ['AwaitingRecovery', 'Stopping', { topic: 'recovery', phase: 'done' }],
    ['Stopping', 'AwaitingRecovery', { topic: 'recovery', phase: 'started' }],
    ['Running', 'Stopping', { topic: 'stop', phase: 'started' }],
    ['Stopping', 'Ready', { topic: 'stop', phase: 'done' }],
    ['Ready', 'Closing', { topic: 'close', phase: 'started' }],
    ['Closing', 'Archived', null],
    ['Ready', 'Running', null],
  ] as const)('%s → %s', (from, to, expected) => {
    expect(progressOf(from, to)).toEqual(expected);
  });
});
