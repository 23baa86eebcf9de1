import type { SessionState } from '../session-types.ts';

/**
 * What expiry means for a session in `state`, written as the rule reads (SPEC, session lifetime). The
 * transition table implements it; `lifetime.test.ts` checks the two agree for every state. Only that
 * test uses it, so it lives with the domain's test helpers.
 * - `close_now`: idle, close and archive.
 * - `close_after_work`: working; current work is not interrupted, new input is refused, close after.
 * - `finish_backlog`: Ready but work Bria already accepted is still queued or being handed over:
 *   it runs first, then the session closes.
 * - `mark_expired`: the session cannot act on it now (starting, stopping, recovering); new input is
 *   refused at once and the close decision is taken when it is back in Ready/Running.
 * - `not_applicable`: no lifetime runs in this state (or it already expired).
 */
export type ExpiryDecision = 'close_now' | 'close_after_work' | 'finish_backlog' | 'mark_expired' | 'not_applicable';

export function onExpiry(state: SessionState, hasAcceptedWork: boolean): ExpiryDecision {
  switch (state) {
    case 'Ready':
      return hasAcceptedWork ? 'finish_backlog' : 'close_now';
    case 'Running':
      return 'close_after_work';
    case 'Starting':
    case 'Stopping':
    case 'AwaitingRecovery':
      return 'mark_expired';
    case 'Resuming':
    case 'ClosingAfterWork':
    case 'Closing':
    case 'Archived':
    case 'ResumeFailed':
      return 'not_applicable';
    default:
      return state satisfies never;
  }
}
