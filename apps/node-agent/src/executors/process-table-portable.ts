import { execFile, spawnSync } from 'node:child_process';
import type { ProcStat } from './proc-tree.ts';
import type { ProcessTable } from './process-table.ts';
import { childrenIn, PS_COLUMNS, PS_ENV, parsePsTable, treeIn } from './ps-output.ts';

// The process layer for systems without /proc (macOS), and for Linux when forced
// (BRIA_AGENT_PROCESS_LAYER=portable): every answer comes from `ps` output, no native addon.
//  - one process: `ps -ww -o … -p <pid>`; none: exit status 1 with no output (procps and BSD ps);
//  - children and trees: one `ps -A` snapshot, walked in memory (never one `ps` per pid).
// A `ps` that cannot run at all (missing, killed, timed out) throws: "cannot tell" must never read
// as "the process is gone", which would report a live CLI as dead.

const TIMEOUT_MS = 5_000;
const ONE = (pid: number) => ['-ww', '-o', PS_COLUMNS, '-p', String(pid)];
const ALL = ['-A', '-ww', '-o', PS_COLUMNS];

/** stdout, or '' when `ps` says "no such process" (status 1, nothing printed); throws otherwise. */
function output(status: number | null, stdout: string, stderr: string, error: Error | undefined, args: string[]): string {
  if (error) throw new Error(`ps ${args.join(' ')}: ${error.message}`);
  if (status === 0 || (status === 1 && stdout.trim() === '')) return stdout;
  throw new Error(`ps ${args.join(' ')}: exit ${status}: ${stderr.trim().slice(0, 200)}`);
}

function runPs(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('ps', args, { env: PS_ENV, timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      // execFile reports a non-zero exit as an error with a numeric `code`; only a spawn failure
      // (string code such as ENOENT) or a kill (timeout) is a real failure.
      const e = err as (NodeJS.ErrnoException & { killed?: boolean }) | null;
      const status = e ? (typeof e.code === 'number' ? e.code : null) : 0;
      const failed = e && (status === null || e.killed) ? e : undefined;
      try {
        resolve(output(status, stdout, stderr, failed, args));
      } catch (x) {
        reject(x);
      }
    });
  });
}

function runPsSync(args: string[]): string {
  const r = spawnSync('ps', args, { env: PS_ENV, timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' });
  return output(r.status, r.stdout ?? '', r.stderr ?? '', r.error, args);
}

const valid = (pid: number) => Number.isInteger(pid) && pid > 0;
const one = (text: string, pid: number) => parsePsTable(text).find((r) => r.pid === pid) ?? null;
const running = (st: ProcStat | null) => st !== null && st.state !== 'Z' && st.state !== 'X';
const stat = async (pid: number) => (valid(pid) ? one(await runPs(ONE(pid)), pid) : null);
const statSync = (pid: number) => (valid(pid) ? one(runPsSync(ONE(pid)), pid) : null);

export const portableTable: ProcessTable = {
  layer: 'portable',
  childrenOf: async (pid) => (valid(pid) ? childrenIn(parsePsTable(await runPs(ALL)), pid) : []),
  processTree: async (pid) => (valid(pid) ? treeIn(parsePsTable(await runPs(ALL)), pid) : []),
  procStat: stat,
  isAlive: async (pid) => running(await stat(pid)),
  procExists: async (pid) => (await stat(pid)) !== null,
  procStatSync: statSync,
  isAliveSync: (pid) => running(statSync(pid)),
  processTreeSync: (pid) => (valid(pid) ? treeIn(parsePsTable(runPsSync(ALL)), pid) : []),
  procStatsSync: (pids) => {
    const wanted = [...new Set(pids.filter(valid))];
    if (wanted.length === 0) return new Map();
    // Repeated `-p` (not a comma list): both procps and BSD ps take it.
    const rows = parsePsTable(runPsSync(['-ww', '-o', PS_COLUMNS, ...wanted.flatMap((p) => ['-p', String(p)])]));
    return new Map(rows.filter((r) => wanted.includes(r.pid)).map((r) => [r.pid, r]));
  },
};
