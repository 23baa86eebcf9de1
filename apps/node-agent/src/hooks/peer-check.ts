import { execFile } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import type { Socket } from 'node:net';

/**
 * Who is on the other end of a hook connection, as the kernel says it (Linux). Node exposes no
 * SO_PEERCRED, so: the accepted socket's inode from `/proc/self/fd/<fd>`, then `ss -xpn` (iproute2,
 * sock_diag underneath) lists every Unix socket with its peer's inode and the processes holding it.
 * The pid the hook reports is only a fallback where this cannot be read (docs/hooks-channel.md,
 * "Who may ask").
 */

/** The accepted socket's inode, or null where the fd or /proc cannot be read. */
export function socketInode(socket: Socket): number | null {
  // libuv's handle keeps the fd; Node has no public accessor for a pipe's fd.
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) return null;
  try {
    const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * From `ss -xpnH` output: the pids holding the socket whose peer is `inode` (the other end of our
 * accepted connection). Pure. Empty when the row has no process (not ours to see, or gone).
 */
export function peerPidsFromSs(output: string, inode: number): number[] {
  const pids = new Set<number>();
  for (const line of output.split('\n')) {
    // … <local address> <local inode> <peer address> <peer inode> [users:((…))]
    const m = /\s(\d+)\s+\S+\s+(\d+)(?:\s+(users:\(.*\)))?\s*$/.exec(line);
    if (!m || Number(m[2]) !== inode || Number(m[1]) === inode) continue;
    for (const p of (m[3] ?? '').matchAll(/pid=(\d+)/g)) pids.add(Number(p[1]));
  }
  return [...pids];
}

/** The processes on the other end of the socket; null when the kernel's view is not available here. */
export async function kernelPeerPids(socket: Socket): Promise<number[] | null> {
  const inode = socketInode(socket);
  if (inode === null) return null;
  const out = await new Promise<string | null>((resolve) => {
    execFile('ss', ['-xpnH'], { timeout: 10_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout) => resolve(err ? null : stdout));
  });
  return out === null ? null : peerPidsFromSs(out, inode);
}

/** The parent of `pid` from /proc (Linux); null when it cannot be read. */
export function parentPid(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]) || null;
  } catch {
    return null;
  }
}

/** Whether `pid` is `root` or runs below it (its parents, up to init). Pure with `parentOf`. */
export function inTree(pid: number, root: number, parentOf: (pid: number) => number | null = parentPid): boolean {
  let p: number | null = pid;
  for (let depth = 0; p !== null && p > 1 && depth < 128; depth++) {
    if (p === root) return true;
    p = parentOf(p);
  }
  return false;
}
