import { RESUME_ANSWER_MS, STOP_DRAIN_MS } from '@bria/core/domain';
import type { MessageKey } from '../i18n/catalog.ts';

type State = 'Starting' | 'Resuming' | 'Ready' | 'Running' | 'Stopping' | 'ClosingAfterWork' | 'AwaitingRecovery' | 'Closing' | 'Archived' | 'ResumeFailed';

export interface WaitingInput {
  state: State;
  /** AwaitingRecovery only: the working state recovery returns to. */
  resumeState: State | null;
  /** The CLI waits on a dialog on the computer (its text is shown beside this line). */
  dialog: boolean;
  /** Whether the session's computer is connected (unknown on lists: treated as connected). */
  nodeOnline?: boolean;
}

/**
 * What a state without buttons waits for, and what ends the wait (domain README, "Waits and their
 * bounds"): no state is described as changing "on its own". Null for states that offer an action.
 */
export function waitingText(s: WaitingInput): { key: MessageKey; vars?: Record<string, number> } | null {
  const resumeBound = { minutes: RESUME_ANSWER_MS / 60_000 };
  switch (s.state) {
    case 'Ready':
    case 'Running':
    case 'Archived':
      return null;
    case 'Starting':
      return { key: s.dialog ? 'wait.startDialog' : 'wait.starting' };
    case 'Resuming':
      return { key: 'wait.resuming', vars: resumeBound };
    case 'Stopping':
      return { key: 'wait.stopping', vars: { seconds: STOP_DRAIN_MS / 1000 } };
    case 'ClosingAfterWork':
      return { key: 'wait.closingAfterWork' };
    case 'AwaitingRecovery':
      if (s.resumeState === 'Resuming') return { key: 'wait.recoveringResume', vars: resumeBound };
      if (s.dialog) return { key: 'wait.startDialog' };
      return { key: s.nodeOnline === false ? 'wait.recoveringOffline' : 'wait.recovering' };
    case 'Closing':
      return { key: s.nodeOnline === false ? 'wait.closingOffline' : 'wait.closing' };
    case 'ResumeFailed':
      return { key: 'wait.resumeFailed' };
    default:
      return s.state satisfies never;
  }
}
