import { execFile, spawnSync } from 'node:child_process';
import type { ProcStat } from './proc-tree.ts';
import type { ProcessTable } from './process-table.ts';
import { childrenIn, PS_COLUMNS, PS_ENV, parsePsTable, treeIn } from './ps-output.ts';

// The process layer for systems without /proc (macOS), and for Linux when forced
// (BRIA_AGENT_PROCESS_LAYER=portable): every answer comes from `ps` output, no native addon.
//  - some processes: `ps -ww -o … -p <pid> … -p <agent pid>` (repeated `-p`, not a comma list:
//    both procps and BSD ps take it);
//  - children and trees: one `ps -A` snapshot, walked in memory (never one `ps` per pid).
// An answer is trusted only when it lists the agent itself: then a pid missing from it is gone.
// Exit statuses and stderr are not relied on (procps exits 1 both for "no such process" and for a
// usage error); a `ps` that cannot run, is killed or times out throws, so "cannot tell" never
// reads as "the process is gone", which would report a live CLI as dead.

const TIMEOUT_MS = 5_000;
const MAX_BUFFER = 16 * 1024 * 1024;
const SOME = (pids: readonly number[]) => ['-ww', '-o', PS_COLUMNS, ...[...pids, process.pid].flatMap((p) => ['-p', String(p)])];
const ALL = ['-A', '-ww', '-o', PS_COLUMNS];

/** The rows of one `ps` run, if it listed `self` (the process asking); throws otherwise. */
export function psRows(r: { status: number | null; stdout: string; stderr: string; error?: Error }, args: readonly string[], self = process.pid): ProcStat[] {
  if (r.error) throw new Error(`ps ${args.join(' ')}: ${r.error.message}`);
  const rows = parsePsTable(r.stdout);
  if (!rows.some((x) => x.pid === self)) throw new Error(`ps ${args.join(' ')}: exit ${r.status}, this process not listed: ${r.stderr.trim().slice(0, 200)}`);
  return rows;
}

function runPs(args: string[]): Promise<ProcStat[]> {
  return new Promise((resolve, reject) => {
    execFile('ps', args, { env: PS_ENV, timeout: TIMEOUT_MS, maxBuffer: MAX_BUFFER, encoding: 'utf8' }, (err, stdout, stderr) => {
      // A non-zero exit is an error with a numeric `code`; a spawn failure (ENOENT) has a string
      // code, and a timeout sets `killed`: those are failures whatever was printed.
      const e = err as (NodeJS.ErrnoException & { killed?: boolean }) | null;
      const status = e ? (typeof e.code === 'number' ? e.code : null) : 0;
      const failed = e && (status === null || e.killed) ? e : undefined;
      try {
        resolve(psRows({ status, stdout, stderr, error: failed }, args));
      } catch (x) {
        reject(x);
      }
    });
  });
}

function runPsSync(args: string[]): ProcStat[] {
  const r = spawnSync('ps', args, { env: PS_ENV, timeout: TIMEOUT_MS, maxBuffer: MAX_BUFFER, encoding: 'utf8' });
  return psRows({ status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error }, args);
}

const valid = (pid: number) => Number.isInteger(pid) && pid > 0;
const only = (rows: ProcStat[], wanted: number[]) => new Map(rows.filter((r) => wanted.includes(r.pid)).map((r) => [r.pid, r]));
const find = (rows: ProcStat[], pid: number) => rows.find((r) => r.pid === pid) ?? null;
const running = (st: ProcStat | null) => st !== null && st.state !== 'Z' && st.state !== 'X';
const stat = async (pid: number) => (valid(pid) ? find(await runPs(SOME([pid])), pid) : null);
const statSync = (pid: number) => (valid(pid) ? find(runPsSync(SOME([pid])), pid) : null);

export const portableTable: ProcessTable = {
  layer: 'portable',
  childrenOf: async (pid) => (valid(pid) ? childrenIn(await runPs(ALL), pid) : []),
  processTree: async (pid) => (valid(pid) ? treeIn(await runPs(ALL), pid) : []),
  procStat: stat,
  isAlive: async (pid) => running(await stat(pid)),
  procExists: async (pid) => (await stat(pid)) !== null,
  procStatSync: statSync,
  isAliveSync: (pid) => running(statSync(pid)),
  processTreeSync: (pid) => (valid(pid) ? treeIn(runPsSync(ALL), pid) : []),
  procStats: async (pids) => {
    const wanted = [...new Set(pids.filter(valid))];
    return wanted.length === 0 ? new Map() : only(await runPs(SOME(wanted)), wanted);
  },
  procStatsSync: (pids) => {
    const wanted = [...new Set(pids.filter(valid))];
    return wanted.length === 0 ? new Map() : only(runPsSync(SOME(wanted)), wanted);
  },
};
