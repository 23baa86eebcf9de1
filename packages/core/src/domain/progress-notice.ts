import type { SessionState } from './session-types.ts';

export type ProgressNotice = { topic: 'recovery' | 'stop' | 'close'; phase: 'started' | 'done' };

/**
 * The progress notice a move itself tells (recovery, stop and close started / done), or null. A
 * close's `done` and a stop's `unconfirmed` are the machine's own `notify` effects, not moves.
 */
export function progressOf(from: SessionState, to: SessionState): ProgressNotice | null {
  if (from === to) return null;
  if (to === 'AwaitingRecovery') return { topic: 'recovery', phase: 'started' };
  if (from === 'AwaitingRecovery') return { topic: 'recovery', phase: 'done' };
  if (to === 'Stopping') return { topic: 'stop', phase: 'started' };
  if (from === 'Stopping') return { topic: 'stop', phase: 'done' };
  if (to === 'Closing') return { topic: 'close', phase: 'started' };
  return null;
}
