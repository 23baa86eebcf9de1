import { execFile } from 'node:child_process';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeskHolder, Executor } from '@bria/core/protocol';
import { claudeConfigDir, type Env, type Tmux } from '../executors/index.ts';
import { type RecordedTree, recordTree, stillThere } from '../executors/launch.ts';
import { processTree, procStat, sameStart, ticksToLstart } from '../executors/process-table.ts';
import { type NativeHolder, outside, scanHolders } from './native-holders.ts';

/** What the guard needs of the agent: the CLIs' environment (their homes) and Bria's own tmux server. */
export interface GuardContext {
  env: Env;
  tmux: Tmux;
  /** CLIs Bria adopted in place (they run in the user's tmux and are Bria's own). */
  briaPids?: readonly number[];
}

/** When a start token says the process started (ms since the epoch), or undefined when it cannot tell. */
export function startedAt(startTime: string): number | undefined {
  const lstart = /^\d+$/.test(startTime) ? ticksToLstart(startTime) : startTime;
  const t = lstart ? Date.parse(`${lstart} UTC`) : Number.NaN;
  return Number.isFinite(t) ? t : undefined;
}

export function toDeskHolder(h: NativeHolder): DeskHolder {
  const since = startedAt(h.startTime);
  return { pid: h.pid, startTime: h.startTime, ...(since === undefined ? {} : { since }), command: h.command, inTmux: h.tmux !== null };
}

/** The words the user reads: where it runs, which process, since when. */
export function heldReason(h: NativeHolder, computer = hostname()): string {
  const since = startedAt(h.startTime);
  const when = since === undefined ? '' : `, since ${new Date(since).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const where = h.tmux ? 'a tmux pane' : 'a terminal';
  return `running in ${where} on ${computer} (pid ${h.pid}${when}: ${h.command.slice(0, 120)}); Bria never starts a second CLI on one session`;
}

/** Every process outside Bria's tmux that holds this native session now. */
export async function deskHolders(ctx: GuardContext, executor: Executor, nativeId: string): Promise<NativeHolder[]> {
  const briaServerPid = await ctx.tmux.serverPid().catch(() => null);
  return outside(await scanHolders({ claudeHome: claudeConfigDir(ctx.env), briaServerPid, briaPids: ctx.briaPids ?? [] }), executor, nativeId);
}

export type EndResult = { ended: true; how: string } | { ended: false; reason: string };

/** Bounds of a take-over's steps: the CLI's own exit keys, SIGINT, SIGTERM, and only then SIGKILL. */
export const END_BOUNDS_MS = { keys: 4_000, sigint: 5_000, sigterm: 10_000, sigkill: 5_000 } as const;

/**
 * Ends a CLI that runs outside Bria the way a person would: in a tmux pane the agent can reach, the
 * CLI's own exit keys (Ctrl-C, which Claude asks twice for and which ends an idle Codex); otherwise,
 * or when that did not end it, SIGINT (both pinned CLIs exit on it within ~2 s), SIGTERM after a
 * bound, and SIGKILL only after a second bound. Every signal goes only to the process recorded
 * (pid + start), and the end is proven: every pid of its tree, collected first, is gone.
 */
export async function endDeskCli(h: NativeHolder, bounds: { [K in keyof typeof END_BOUNDS_MS]: number } = END_BOUNDS_MS): Promise<EndResult> {
  const tree = await recordTree(await processTree(h.pid));
  const root: RecordedTree = new Map([[h.pid, h.startTime]]);
  if ((await stillThere(root)).length === 0) return { ended: true, how: 'already ended' };
  const gone = async (ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if ((await stillThere(tree)).length === 0) return true;
      await sleep(50);
    }
    return (await stillThere(tree)).length === 0;
  };
  if (h.tmux) {
    for (let i = 0; i < 3 && (await stillThere(root)).length > 0; i++) {
      if (!(await tmuxKeys(h.tmux, ['C-c']))) break;
      if (await gone(i === 2 ? bounds.keys : 600)) return { ended: true, how: 'exit keys typed into its tmux pane' };
    }
    if (await gone(0)) return { ended: true, how: 'exit keys typed into its tmux pane' };
  }
  for (const [signal, ms] of [
    ['SIGINT', bounds.sigint],
    ['SIGTERM', bounds.sigterm],
    ['SIGKILL', bounds.sigkill],
  ] as const) {
    const sent = await signalRecorded(h, signal);
    if (sent === 'eperm') return { ended: false, reason: `pid ${h.pid} belongs to another user; Bria cannot end it (end it at the computer, then try again)` };
    if (sent === 'gone' || (await gone(ms))) return { ended: true, how: signal };
  }
  return { ended: false, reason: `pid ${h.pid} did not end after SIGINT, SIGTERM and SIGKILL` };
}

async function signalRecorded(h: NativeHolder, signal: NodeJS.Signals): Promise<'sent' | 'gone' | 'eperm'> {
  const st = await procStat(h.pid);
  if (!st || sameStart(h.startTime, st.startTime) === false) return 'gone';
  try {
    process.kill(h.pid, signal);
    return 'sent';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? 'eperm' : 'gone';
  }
}

function tmuxKeys(t: NonNullable<NativeHolder['tmux']>, keys: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('tmux', ['-S', t.socket, 'send-keys', '-t', t.pane, ...keys], { timeout: 5_000 }, (err) => resolve(!err));
  });
}
