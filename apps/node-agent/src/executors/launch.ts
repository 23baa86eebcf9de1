import { access } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Tmux } from '../tmux/tmux.ts';
import { childrenOf, isAlive, processTree, procStat, procStats, sameStart } from './process-table.ts';
import { detectBlockingPrompt, isAtPrompt } from './screen.ts';
import type { ExecutorDriver, SessionIdentity } from './types.ts';

/** The CLI is the wrapper shell's child (`env -i` execs into it). */
export async function waitForCliPid(tmux: Tmux, paneId: string, panePid: number, ms: number): Promise<number | null> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const kids = await childrenOf(panePid);
    if (kids.length > 0) return Math.min(...kids);
    const info = await tmux.paneInfo(paneId);
    if (!info || info.dead) return null;
    await sleep(25);
  }
  return null;
}

export type ReadyWait =
  | { state: 'ready'; screen: string }
  | { state: 'dead'; screen: string; exitStatus: number | null }
  | { state: 'timeout'; screen: string; blockedOn: string | null };

/** Waits until the TUI shows its idle prompt, dies, or time runs out; reports questions it asks. */
export async function waitForPrompt(opts: {
  tmux: Tmux;
  paneId: string;
  cliPid: number;
  exitFile: string;
  ms: number;
  onBlocked: (promptText: string) => void;
}): Promise<ReadyWait> {
  const end = Date.now() + opts.ms;
  let reported: string | null = null;
  let screen = '';
  for (;;) {
    const info = await opts.tmux.paneInfo(opts.paneId);
    screen = info ? await opts.tmux.capture(opts.paneId, { scrollback: 100 }).catch(() => screen) : screen;
    if (!info || info.dead || !(await isAlive(opts.cliPid))) {
      await sleep(100); // let the wrapper write the exit file
      // The screen read above may predate the CLI's last words (it printed them and exited between
      // the capture and the liveness check; seen on a busy machine): the dead pane keeps them.
      const last = await opts.tmux.capture(opts.paneId, { scrollback: 100 }).catch(() => null);
      return { state: 'dead', screen: last || screen, exitStatus: await opts.tmux.readExitStatus(opts.exitFile, 2_000) };
    }
    const question = detectBlockingPrompt(screen);
    if (question && question !== reported) {
      reported = question;
      opts.onBlocked(question);
    }
    if (!question && isAtPrompt(screen)) return { state: 'ready', screen };
    if (Date.now() > end) return { state: 'timeout', screen, blockedOn: question };
    await sleep(100);
  }
}

/** The CLI's own words when it died: the last lines on screen, without tmux's dead-pane banner. */
export function lastWords(screen: string): string {
  return screen
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '' && !/^Pane is dead/.test(l))
    .slice(-6)
    .join('\n');
}

export interface CloseEvidence {
  pids: number[];
  lingering: number[];
  exitStatus: number | null;
  paneDead: boolean;
  escalation: ('kill-session' | 'sigkill')[];
  /** SIGCHLDs sent to our tmux server so it reaps a pane process it had missed. */
  reapNudges: number;
  /** What was still running when `/exit` had not ended it in time. */
  survivors: { pid: number; comm: string; state: string; ppid: number }[];
  elapsedMs: number;
}

/**
 * The processes of a tree as they were when collected: pid → start token. A pid names a process only
 * together with its start: the system hands a finished process's pid to a new one (on Linux after at
 * most `pid_max` others, 32,768 by default), and a close that waits seconds must neither take that
 * stranger for a survivor nor kill it.
 */
export type RecordedTree = ReadonlyMap<number, string>;

export async function recordTree(pids: readonly number[]): Promise<RecordedTree> {
  const found = await procStats(pids);
  return new Map([...found].map(([pid, st]) => [pid, st.startTime]));
}

/** The recorded processes that still exist (zombies included), in one look; a reused pid is gone. */
export async function stillThere(tree: RecordedTree): Promise<number[]> {
  const found = await procStats([...tree.keys()]);
  return [...tree]
    .filter(([pid, start]) => {
      const st = found.get(pid);
      // Cannot tell (tokens of two layers that do not meet) counts as still there: never a guess that ends a wait.
      return st !== undefined && sameStart(start, st.startTime) !== false;
    })
    .map(([pid]) => pid);
}

/** SIGKILL to each of `pids` that is provably the recorded process; returns the pids signalled. */
export async function killRecorded(tree: RecordedTree, pids: readonly number[]): Promise<number[]> {
  const killed: number[] = [];
  for (const pid of pids) {
    const start = tree.get(pid);
    const st = await procStat(pid);
    if (start === undefined || !st || sameStart(start, st.startTime) !== true) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // already gone
    }
  }
  return killed;
}

async function waitGone(tmux: Tmux, tree: RecordedTree, ms: number, nudges: { count: number }): Promise<number[]> {
  const begin = Date.now();
  const end = begin + ms;
  const server = await tmux.serverPid();
  let left = await stillThere(tree);
  while (left.length > 0 && Date.now() < end) {
    await sleep(50);
    left = await stillThere(tree);
    // A finished pane process tmux forgot to reap (see Tmux.nudgeReaper), once tmux had a fair
    // chance to reap it by itself.
    if (Date.now() - begin < 500) continue;
    for (const p of left) {
      const st = await procStat(p);
      if (st?.state === 'Z' && st.ppid === server && (await tmux.nudgeReaper())) nudges.count++;
    }
  }
  return left;
}

/**
 * `/exit`, then proof: every pid of the tree (collected beforehand) gone and the pane dead. Without
 * `graceful` (a CLI never proven to be at its prompt) no key is typed: straight to kill-session.
 */
export async function closeCli(opts: { tmux: Tmux; identity: SessionIdentity; exitMs: number; graceful: boolean }): Promise<CloseEvidence> {
  const { tmux, identity } = opts;
  const started = Date.now();
  const pids = await processTree(identity.panePid);
  const tree = await recordTree(pids);
  const escalation: CloseEvidence['escalation'] = [];
  const info = await tmux.paneInfo(identity.paneId);
  if (info && !info.dead && opts.graceful) await tmux.paste(identity.paneId, '/exit');
  const nudges = { count: 0 };
  let lingering = await waitGone(tmux, tree, opts.graceful ? opts.exitMs : 0, nudges);
  const survivors: CloseEvidence['survivors'] = [];
  for (const p of lingering) {
    const st = await procStat(p);
    if (st) survivors.push({ pid: p, comm: st.comm, state: st.state, ppid: st.ppid });
  }
  if (lingering.length > 0) {
    escalation.push('kill-session');
    await tmux.killSession(identity.tmuxSession).catch(() => undefined);
    // SIGHUP lets the CLI save its state; Claude needed up to 3.5 s on a quiet machine and more
    // than 5 s on a busy one, so it gets 10 s before the SIGKILL that would cut that short.
    lingering = await waitGone(tmux, tree, 10_000, nudges);
  }
  if (lingering.length > 0) {
    escalation.push('sigkill');
    await killRecorded(tree, lingering);
    lingering = await waitGone(tmux, tree, 3000, nudges);
  }
  const after = await tmux.paneInfo(identity.paneId);
  const paneDead = after === null || after.dead;
  const exitStatus = await tmux.readExitStatus(identity.exitFile, 2_000);
  // The dead pane has served as evidence; remove it so the server does not collect corpses.
  if (after) await tmux.killSession(identity.tmuxSession).catch(() => undefined);
  return { pids, lingering, exitStatus, paneDead, escalation, survivors, reapNudges: nudges.count, elapsedMs: Date.now() - started };
}

export interface Mismatch {
  field: string;
  expected: unknown;
  actual: unknown;
}

/** Every identity field checked against the machine, before an observer may bind to the pane. */
export async function verifyIdentity(tmux: Tmux, driver: ExecutorDriver, id: SessionIdentity): Promise<Mismatch[]> {
  const out: Mismatch[] = [];
  const check = (field: string, expected: unknown, actual: unknown) => {
    if (expected !== actual) out.push({ field, expected, actual });
  };
  check('executor', driver.executor, id.executor);
  check('tmuxSocket', tmux.socketName, id.tmuxSocket);
  const pane = await tmux.paneInfo(id.paneId);
  check('pane', 'alive', pane ? (pane.dead ? 'dead' : 'alive') : 'missing');
  if (pane) {
    check('tmuxSession', id.tmuxSession, pane.sessionName);
    check('panePid', id.panePid, pane.panePid);
  }
  const st = await procStat(id.cliPid);
  check('cliPid', 'alive', st && st.state !== 'Z' ? 'alive' : 'gone');
  if (st) {
    // Not provably the same start (also: cannot tell) is a mismatch: never bound on a guess.
    if (sameStart(id.cliStartTime, st.startTime) !== true) out.push({ field: 'cliStartTime', expected: id.cliStartTime, actual: st.startTime });
    // Bria's wrapper shell is the CLI's parent; in a pane of the user's own (adopted in place) the
    // CLI may be the pane's process itself or run anywhere under its shell.
    if (!tmux.userServer) check('cliParent', id.panePid, st.ppid);
    else if (!(await processTree(id.panePid)).includes(id.cliPid)) out.push({ field: 'cliInPane', expected: id.panePid, actual: st.ppid });
  }
  if (id.journalPath) {
    const exists = await access(id.journalPath).then(
      () => true,
      () => false,
    );
    check('journal', 'present', exists ? 'present' : 'missing');
  }
  return out;
}
