import type { SessionState } from './session-types.ts';

/** Evidence events that settle whether a CLI being started is still on a dialog (`blocked_on_prompt` says it is). */
export const START_FACTS: ReadonlySet<string> = new Set(['blocked_on_prompt', 'cli_ready', 'reattached', 'resume_confirmed', 'process_exited_verified']);

/**
 * The dialog a starting CLI shows on the computer (the text the chat got as a notice), while it is
 * the latest start fact and the session is not ready yet; null otherwise. `evidence` oldest first.
 */
export function waitingDialog(state: SessionState | string, evidence: readonly { event: string; evidence?: unknown }[]): string | null {
  if (state !== 'Starting' && state !== 'AwaitingRecovery') return null;
  const last = evidence.findLast((e) => START_FACTS.has(e.event));
  const text = last?.event === 'blocked_on_prompt' ? (last.evidence as { text?: unknown } | null)?.text : null;
  return typeof text === 'string' && text.trim() ? text : null;
}
