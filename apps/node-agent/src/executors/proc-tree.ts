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
  const rest = text.slice(close + 2).trim().split(/\s+/);
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
