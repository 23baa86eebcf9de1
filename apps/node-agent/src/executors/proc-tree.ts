import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** Children of every thread of `pid` (a child may have been forked by any thread). */
export async function childrenOf(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const out = new Set<number>();
  for (const task of tasks) {
    const text = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    for (const p of text.split(/\s+/)) if (/^\d+$/.test(p)) out.add(Number(p));
  }
  return [...out];
}

/** `pid` and all of its descendants, parents first. */
export async function processTree(pid: number): Promise<number[]> {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift()!;
    if (out.includes(p) || !(await isAlive(p))) continue;
    out.push(p);
    queue.push(...(await childrenOf(p)));
  }
  return out;
}

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  /** Clock ticks since boot; with the pid it names one process for the machine's uptime. */
  startTime: string;
}

export function parseProcStat(text: string): ProcStat | null {
  // comm may contain spaces and parentheses, so split at the last ')'.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state); starttime is field 22.
  if (rest.length < 20) return null;
  return {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    state: rest[0]!,
    ppid: Number(rest[1]),
    startTime: rest[19]!,
  };
}

export async function procStat(pid: number): Promise<ProcStat | null> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return text === null ? null : parseProcStat(text);
}

/** A zombie has finished running; only its parent's bookkeeping is left. */
export async function isAlive(pid: number): Promise<boolean> {
  const st = await procStat(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
}

/** Whether `/proc/<pid>` still exists at all (zombies included). */
export async function procExists(pid: number): Promise<boolean> {
  return (await procStat(pid)) !== null;
}

// Synchronous variants for the health monitor: /proc is in memory, so a read never waits for a
// disk, and one sync read costs a few microseconds where an async `readFile` (thread pool and
// promise) costs ~0.1 ms of CPU. Measured: a whole async process-tree walk of a Codex pane ~5 ms.

export function childrenOfSync(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out = new Set<number>();
  for (const task of tasks) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
    } catch {
      // the thread ended meanwhile
    }
    for (const p of text.split(/\s+/)) if (/^\d+$/.test(p)) out.add(Number(p));
  }
  return [...out];
}

export function procStatSync(pid: number): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

export function isAliveSync(pid: number): boolean {
  const st = procStatSync(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
}

/** `pid` and all of its descendants, parents first (sync; see above). */
export function processTreeSync(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift()!;
    if (out.includes(p) || !isAliveSync(p)) continue;
    out.push(p);
    queue.push(...childrenOfSync(p));
  }
  return out;
}
