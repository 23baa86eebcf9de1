import { setTimeout as sleep } from 'node:timers/promises';
import type { Tmux } from '../tmux/tmux.ts';
import { lastWords, waitForCliPid, waitForPrompt } from './launch.ts';
import { procStat } from './process-table.ts';
import { type DriverContext, type Env, type ExecutorDriver, ExecutorError, type HostEvent, type SessionIdentity } from './types.ts';

/**
 * How a launch ended: the CLI at its prompt with its id confirmed, or an error and the state the host
 * is left in — `closed` (nothing runs, or a dead pane that was removed) or `unconfirmed` (a CLI runs
 * in the pane but was never proven ready: it may be closed, but no key is sent to it).
 */
export type LaunchOutcome =
  | { kind: 'ready'; nativeId: string; journalPath: string | null; evidence: Record<string, unknown> }
  | { kind: 'failed'; leave: 'closed' | 'unconfirmed'; error: ExecutorError };

export interface LaunchInput {
  driver: ExecutorDriver;
  tmux: Tmux;
  bin: string;
  env: Env;
  readyMs: number;
  /** When the launch began (the drivers read the CLI's files written after it). */
  startedAt: number;
  cwd: string;
  sessionName: string;
  args: string[];
  expectedId: string | null;
  resumed: boolean;
  /** The identity as soon as the CLI's process is known; the launch completes the same object. */
  onIdentity: (identity: SessionIdentity) => void;
  emit: (e: HostEvent) => void;
}

/** Starts the CLI in a new tmux session and waits (bounded) for its prompt and its own id. */
export async function launchCli(o: LaunchInput): Promise<LaunchOutcome> {
  const code = o.resumed ? 'resume_failed' : 'start_failed';
  let pane: Awaited<ReturnType<Tmux['newSession']>>;
  try {
    pane = await o.tmux.newSession({ name: o.sessionName, cwd: o.cwd, command: [o.bin, ...o.args], env: o.env });
  } catch (err) {
    return { kind: 'failed', leave: 'closed', error: new ExecutorError(code, `could not create the tmux session: ${(err as Error).message}`) };
  }
  const fail = async (reason: string, details: Record<string, unknown>): Promise<LaunchOutcome> => {
    // A dead pane has nothing left to protect; a live one stays for the caller to close or inspect.
    const info = await o.tmux.paneInfo(pane.paneId);
    if (info?.dead) await o.tmux.killSession(o.sessionName).catch(() => undefined);
    return { kind: 'failed', leave: 'closed', error: new ExecutorError(code, reason, details) };
  };
  const unconfirmed = (error: ExecutorError): LaunchOutcome => ({ kind: 'failed', leave: 'unconfirmed', error });
  const cliPid = await waitForCliPid(o.tmux, pane.paneId, pane.panePid, 5000);
  // The wrapper shell has read the script by now (its child runs) or is gone: the script, which
  // holds the CLI's environment, is no longer needed.
  await o.tmux.removeScript(pane.scriptPath).catch(() => undefined);
  if (cliPid === null) {
    const screen = await o.tmux.capture(pane.paneId).catch(() => '');
    return fail('CLI did not start', { cliSaid: lastWords(screen), exitStatus: await o.tmux.readExitStatus(pane.exitFile, 2_000) });
  }
  const st = await procStat(cliPid);
  const ident: SessionIdentity = {
    executor: o.driver.executor,
    tmuxSocket: o.tmux.socketName,
    tmuxSession: o.sessionName,
    paneId: pane.paneId,
    panePid: pane.panePid,
    cliPid,
    cliStartTime: st?.startTime ?? '',
    cwd: o.cwd,
    nativeId: o.expectedId ?? '',
    journalPath: null,
    exitFile: pane.exitFile,
  };
  o.onIdentity(ident);
  const ctx: DriverContext = { tmux: o.tmux, paneId: pane.paneId, cwd: o.cwd, env: o.env, cliPid, startedAt: o.startedAt };
  const ready = async () =>
    waitForPrompt({
      tmux: o.tmux,
      paneId: pane.paneId,
      cliPid,
      exitFile: pane.exitFile,
      ms: o.readyMs,
      onBlocked: (promptText) => o.emit({ type: 'blocked_on_prompt', promptText, evidence: { paneId: pane.paneId, cliPid } }),
    });
  let wait = await ready();
  const settle = o.resumed ? o.driver.settleMs.resume : o.driver.settleMs.start;
  if (wait.state === 'ready' && settle > 0) {
    await sleep(settle);
    wait = await ready();
  }
  if (wait.state === 'dead') return fail('CLI exited before its prompt', { cliSaid: lastWords(wait.screen), exitStatus: wait.exitStatus });
  if (wait.state === 'timeout') {
    return unconfirmed(
      new ExecutorError(wait.blockedOn ? 'blocked_on_prompt' : 'not_ready', 'CLI did not reach its prompt', { promptText: wait.blockedOn, identity: ident }),
    );
  }
  const stated = await o.driver.readNativeId(ctx);
  if (!stated.nativeId || (o.expectedId && stated.nativeId !== o.expectedId)) {
    return unconfirmed(new ExecutorError(code, 'CLI does not confirm the session id', { expected: o.expectedId, stated: stated.nativeId, identity: ident }));
  }
  ident.nativeId = stated.nativeId;
  const journalPath = await o.driver.findJournal(ctx, stated.nativeId, { resumed: o.resumed });
  if (o.resumed && !journalPath) return unconfirmed(new ExecutorError(code, 'resumed session has no journal of its own', { identity: ident }));
  ident.journalPath = journalPath;
  return { kind: 'ready', nativeId: stated.nativeId, journalPath, evidence: { cliPid, panePid: pane.panePid, idSource: stated.evidence, screen: 'prompt' } };
}
