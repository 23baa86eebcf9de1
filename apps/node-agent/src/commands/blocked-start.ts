import type { Env, ExecutorDriver, SessionIdentity, Tmux } from '../executors/index.ts';
import { isAlive } from '../executors/process-table.ts';
import { detectBlockingPrompt, isAtPrompt } from '../executors/screen.ts';

export type DialogOutcome =
  | { state: 'ready'; identity: SessionIdentity }
  | { state: 'dead'; exitStatus: number | null }
  | { state: 'abandoned' }
  | { state: 'mismatch'; reason: string };

/**
 * A CLI that showed a dialog while starting (folder trust, permission, login) and did not reach its
 * prompt in the start's time is left on its dialog — Bria never answers it — and watched here until
 * the user answers it on the computer: then the start is finished exactly as `SessionHost.launch`
 * would (the id the CLI states, checked against the id Bria chose; the journal path), or the CLI died
 * (verified exit), or another attempt took the session over (`current()` false). A changed dialog is
 * reported again through `onBlocked`.
 */
export async function waitOutStartDialog(o: {
  tmux: Tmux;
  driver: ExecutorDriver;
  env: Env;
  identity: SessionIdentity;
  expectedId: string | null;
  startedAt: number;
  current: () => boolean;
  onBlocked: (text: string) => void;
  pollMs?: number;
  reported?: string | null;
}): Promise<DialogOutcome> {
  const id = o.identity;
  let reported = o.reported ?? null;
  for (;;) {
    await new Promise((r) => setTimeout(r, o.pollMs ?? 1000));
    if (!o.current()) return { state: 'abandoned' };
    const info = await o.tmux.paneInfo(id.paneId).catch(() => null);
    if (!info || info.dead || !(await isAlive(id.cliPid))) {
      await new Promise((r) => setTimeout(r, 100)); // let the wrapper write the exit file
      return { state: 'dead', exitStatus: await o.tmux.readExitStatus(id.exitFile, 2_000).catch(() => null) };
    }
    const screen = await o.tmux.capture(id.paneId, { scrollback: 100 }).catch(() => '');
    const question = detectBlockingPrompt(screen);
    if (question) {
      if (question !== reported) {
        reported = question;
        o.onBlocked(question);
      }
      continue;
    }
    if (!isAtPrompt(screen)) continue;
    // At its idle prompt: the same confirmation as a start that was never blocked.
    const ctx = { tmux: o.tmux, paneId: id.paneId, cwd: id.cwd, env: o.env, cliPid: id.cliPid, startedAt: o.startedAt };
    const stated = await o.driver.readNativeId(ctx);
    if (!stated.nativeId) continue;
    if (o.expectedId && stated.nativeId !== o.expectedId) return { state: 'mismatch', reason: `CLI states ${stated.nativeId}, expected ${o.expectedId}` };
    const journalPath = await o.driver.findJournal(ctx, stated.nativeId, { resumed: false });
    return { state: 'ready', identity: { ...id, nativeId: stated.nativeId, journalPath } };
  }
}
