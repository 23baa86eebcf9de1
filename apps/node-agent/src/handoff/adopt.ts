import { stat } from 'node:fs/promises';
import type { Executor } from '@bria/core/protocol';
import { claudeConfigDir, type Env, type SessionIdentity, Tmux } from '../executors/index.ts';
import { processTree, sameStart } from '../executors/process-table.ts';
import { type NativeHolder, scanHolders } from './native-holders.ts';

/**
 * "Adopt in place" (docs/handoff.md): a CLI begun by hand in a tmux pane of the same user becomes one
 * of Bria's sessions in that very pane. Bria never restarts it: it checks the process, finds its pane
 * from the process's own environment (`TMUX=<socket path>,<server pid>,<session>`, `TMUX_PANE=%N`),
 * proves the pane runs that process, and binds an observer to it like to a pane of its own.
 */

/**
 * An adopted session's identity names the user's server by its socket path (Bria's by a name). A
 * record without one (only part of an identity kept, e.g. a journal path) is not adopted.
 */
export const isAdopted = (id: Partial<Pick<SessionIdentity, 'tmuxSocket'>>): boolean => typeof id.tmuxSocket === 'string' && id.tmuxSocket.startsWith('/');

export type AdoptRefusal = 'not_in_tmux' | 'other_user' | 'pane_gone' | 'holder_changed';

export type AdoptCheck = { ok: true; identity: SessionIdentity; tmux: Tmux; holder: NativeHolder } | { ok: false; code: AdoptRefusal; reason: string };

/** Owner uid of a file or of a process (`/proc/<pid>`), or null when it cannot be read. */
async function ownerOf(path: string): Promise<number | null> {
  return (await stat(path).catch(() => null))?.uid ?? null;
}

/**
 * Every check before an adoption, in the order a refusal is decided: the process the user saw (pid +
 * start) is the one and only holder of the session outside Bria; it runs as this agent's user; its
 * environment names a tmux pane; that server's socket is this user's; the pane exists, lives, and
 * its `pane_pid` tree contains the CLI. Touches nothing.
 */
export async function checkAdoption(o: {
  env: Env;
  briaServerPid: number | null;
  briaPids: readonly number[];
  executor: Executor;
  nativeId: string;
  pid: number;
  startTime: string;
  cwd: string;
  runDir: string;
  uid?: number;
}): Promise<AdoptCheck> {
  const uid = o.uid ?? process.getuid?.() ?? -1;
  const holders = (await scanHolders({ claudeHome: claudeConfigDir(o.env), briaServerPid: o.briaServerPid, briaPids: o.briaPids })).filter(
    (h) => !h.bria && h.executor === o.executor && h.nativeId === o.nativeId.toLowerCase(),
  );
  const holder = holders.find((h) => h.pid === o.pid && sameStart(h.startTime, o.startTime) !== false);
  if (!holder) {
    const now = holders[0];
    return {
      ok: false,
      code: 'holder_changed',
      reason: now
        ? `not adopted: pid ${o.pid} no longer holds this session; pid ${now.pid} does now (look again and confirm that one)`
        : `not adopted: pid ${o.pid} no longer holds this session (the CLI at the computer has ended)`,
    };
  }
  const other = holders.find((h) => h !== holder);
  if (other) return { ok: false, code: 'holder_changed', reason: `not adopted: pid ${other.pid} holds this session too` };
  const owner = await ownerOf(`/proc/${holder.pid}`);
  if (owner !== null && owner !== uid) return { ok: false, code: 'other_user', reason: `not adopted: pid ${holder.pid} belongs to another user` };
  if (!holder.tmux) {
    return { ok: false, code: 'not_in_tmux', reason: `not adopted: pid ${holder.pid} does not run in a tmux pane (use Continue here instead)` };
  }
  const socketOwner = await ownerOf(holder.tmux.socket);
  if (socketOwner === null) return { ok: false, code: 'pane_gone', reason: `not adopted: its tmux server (${holder.tmux.socket}) is gone` };
  if (socketOwner !== uid) return { ok: false, code: 'other_user', reason: `not adopted: its tmux server (${holder.tmux.socket}) belongs to another user` };
  // A first look without a control client: the session the command client will sit on is not known yet.
  const probe = new Tmux({ socketName: holder.tmux.socket, userServer: true, control: false, runDir: o.runDir });
  const pane = await probe.paneInfo(holder.tmux.pane);
  if (!pane || pane.dead) return { ok: false, code: 'pane_gone', reason: `not adopted: its tmux pane ${holder.tmux.pane} is gone` };
  if (!(await processTree(pane.panePid)).includes(holder.pid)) {
    return { ok: false, code: 'pane_gone', reason: `not adopted: pane ${holder.tmux.pane} does not run pid ${holder.pid} any more` };
  }
  const tmux = new Tmux({ socketName: holder.tmux.socket, userServer: true, controlSession: pane.sessionName, runDir: o.runDir });
  const identity: SessionIdentity = {
    executor: o.executor,
    tmuxSocket: holder.tmux.socket,
    tmuxSession: pane.sessionName,
    paneId: pane.paneId,
    panePid: pane.panePid,
    cliPid: holder.pid,
    cliStartTime: holder.startTime,
    cwd: o.cwd,
    nativeId: holder.nativeId,
    journalPath: null,
    // The user's pane has no wrapper to write one: an adopted CLI's exit status is not known.
    exitFile: '',
  };
  return { ok: true, identity, tmux, holder };
}
