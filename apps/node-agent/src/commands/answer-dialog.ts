import type { AnswerDialogPayload } from '@bria/core/protocol';
import { folderTrustDialog } from '../executors/screen.ts';
import type { Result, SessionRuntime } from './session-runtime.ts';

/**
 * `answer_dialog`: the user trusted the folder of a start that waits on the CLI's folder-trust
 * dialog. The agent presses Enter (the dialog's first, highlighted choice) only after it read that
 * very dialog on the watched start's pane; anything else on screen is refused and nothing is typed.
 * The watch (`blocked-start.ts`) then sees the CLI reach its prompt and reports `session_ready`.
 */
export async function answerDialog(rt: SessionRuntime, sessionId: string, p: AnswerDialogPayload): Promise<Result> {
  const pane = startPane(rt, sessionId);
  if (!pane) return { ok: false, code: 'not_found', error: 'no start waiting on a dialog here' };
  // A start retried while its CLI waits keeps that CLI (and its dialog) under the newer generation:
  // a prompt opened under any generation since the CLI's launch is about this very dialog.
  if (p.generation < pane.since || p.generation > pane.generation)
    return { ok: false, code: 'stale_generation', stale: true, error: `the dialog belongs to generation ${pane.generation}` };
  const screen = await rt.o.tmux.capture(pane.paneId, { scrollback: 0 }).catch(() => '');
  if (!folderTrustDialog(screen)) return { ok: false, code: 'failed', error: 'the pane does not show the folder-trust dialog (any more)' };
  await rt.o.tmux.sendKeys(pane.paneId, ['Enter']);
  rt.o.log('info', 'agent.dialog_answered', { sessionId, dialog: p.dialog, requestId: p.requestId });
  return { ok: true };
}

/**
 * The pane of the session's start that waits: a start the agent watches on its dialog, or one still
 * in its own wait for the prompt (the dialog appears seconds before the start gives up).
 */
function startPane(rt: SessionRuntime, sessionId: string): { paneId: string; generation: number; since: number } | null {
  const watch = rt.dialogs.get(sessionId);
  if (watch?.paneId) return { paneId: watch.paneId, generation: watch.generation, since: watch.since ?? watch.generation };
  const rec = rt.registry.get(sessionId);
  const host = rt.hosts.get(sessionId);
  if (!rec || !host || rec.status !== 'live' || rec.identity) return null;
  try {
    return { paneId: host.identity().paneId, generation: rec.generation, since: rec.generation };
  } catch {
    return null;
  }
}
