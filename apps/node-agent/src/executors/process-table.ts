import { readFileSync } from 'node:fs';
import * as proc from './proc-tree.ts';
import type { ProcStat } from './proc-tree.ts';
import { portableTable } from './process-table-portable.ts';
import { normaliseStart } from './ps-output.ts';

export type { ProcStat } from './proc-tree.ts';

/**
 * Everything the agent learns about processes (trees, start time, liveness, exit) goes through one
 * of these. `startTime` is an opaque token that with the pid names one process (Linux /proc: field
 * 22 of stat, clock ticks since boot; portable: `ps` `lstart`, see ps-output.ts); two tokens are
 * compared with `sameStart`, which also meets the other layer's form, never as plain text.
 */
export interface ProcessTable {
  readonly layer: ProcessLayer;
  /** Direct children (any thread's). */
  childrenOf(pid: number): Promise<number[]>;
  /** `pid` and all of its descendants, parents first; finished (zombie) processes left out. */
  processTree(pid: number): Promise<number[]>;
  procStat(pid: number): Promise<ProcStat | null>;
  /** Exists and has not finished (a zombie is not alive). */
  isAlive(pid: number): Promise<boolean>;
  /** Exists at all, zombies included. */
  procExists(pid: number): Promise<boolean>;
  // Synchronous variants for the health monitor's ticks (health.ts).
  procStatSync(pid: number): ProcStat | null;
  isAliveSync(pid: number): boolean;
  processTreeSync(pid: number): number[];
  /** Several processes in one look (one `ps` for the portable layer); the missing ones are absent. */
  procStats(pids: readonly number[]): Promise<Map<number, ProcStat>>;
  procStatsSync(pids: readonly number[]): Map<number, ProcStat>;
}

export type ProcessLayer = 'proc' | 'portable';
export const PROCESS_LAYERS = ['proc', 'portable'] as const satisfies readonly ProcessLayer[];

/** Linux: today's /proc reads (proc-tree.ts), unchanged. */
export const procTable: ProcessTable = {
  layer: 'proc',
  childrenOf: proc.childrenOf,
  processTree: proc.processTree,
  procStat: proc.procStat,
  isAlive: proc.isAlive,
  procExists: proc.procExists,
  procStatSync: proc.procStatSync,
  isAliveSync: proc.isAliveSync,
  processTreeSync: proc.processTreeSync,
  procStats: async (pids) => {
    const out = new Map<number, ProcStat>();
    for (const pid of pids) {
      const st = await proc.procStat(pid);
      if (st) out.set(pid, st);
    }
    return out;
  },
  procStatsSync: (pids) => {
    const out = new Map<number, ProcStat>();
    for (const pid of pids) {
      const st = proc.procStatSync(pid);
      if (st) out.set(pid, st);
    }
    return out;
  },
};

/** Linux reads /proc unless told otherwise; every other system (macOS) has only `ps`. */
export function chooseProcessLayer(o: { platform: NodeJS.Platform; forced?: ProcessLayer }): ProcessLayer {
  if (o.platform !== 'linux') {
    if (o.forced === 'proc') throw new Error(`BRIA_AGENT_PROCESS_LAYER=proc needs Linux's /proc; this system is ${o.platform} (use portable)`);
    return 'portable';
  }
  return o.forced ?? 'proc';
}

export function tableFor(layer: ProcessLayer): ProcessTable {
  return layer === 'proc' ? procTable : portableTable;
}

// The process-wide choice: made once at start (main.ts, from the agent's config) before any session
// runs; tests that run the same scenarios over both layers set it per suite.
let current: ProcessTable = tableFor(chooseProcessLayer({ platform: process.platform }));

export function useProcessLayer(layer: ProcessLayer): ProcessTable {
  current = tableFor(layer);
  return current;
}

export function processTable(): ProcessTable {
  return current;
}

// The call sites' functions, answered by the chosen layer.
export const childrenOf = (pid: number) => current.childrenOf(pid);
export const processTree = (pid: number) => current.processTree(pid);
export const procStat = (pid: number) => current.procStat(pid);
export const isAlive = (pid: number) => current.isAlive(pid);
export const procExists = (pid: number) => current.procExists(pid);
export const procStatSync = (pid: number) => current.procStatSync(pid);
export const isAliveSync = (pid: number) => current.isAliveSync(pid);
export const processTreeSync = (pid: number) => current.processTreeSync(pid);
export const procStats = (pids: readonly number[]) => current.procStats(pids);
export const procStatsSync = (pids: readonly number[]) => current.procStatsSync(pids);

const TICKS = /^\d+$/;
const LSTART = /^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/;
const USER_HZ = 100; // /proc's clock ticks: sysconf(_SC_CLK_TCK), 100 on every Linux architecture

/**
 * Whether a recorded start token and a current one name the same process start. Tokens of one form
 * compare as text (spaces of `lstart` normalised). /proc ticks and `ps` `lstart` meet only when
 * BRIA_AGENT_PROCESS_LAYER changed between two agent runs while CLIs kept running: on Linux the
 * ticks are turned into `lstart` exactly as procps does (boot time + ticks / USER_HZ, whole
 * seconds, UTC); where that cannot be done the answer is null — cannot tell, which callers must
 * treat as neither "the same process" nor "gone" (a CLI is never reported exited, nor doubled by a
 * second one, on a guess).
 */
export function sameStart(recorded: string, current: string): boolean | null {
  const a = normaliseStart(recorded);
  const b = normaliseStart(current);
  const ticksA = TICKS.test(a);
  const ticksB = TICKS.test(b);
  if (ticksA === ticksB || !(LSTART.test(a) || LSTART.test(b))) return a === b;
  const asLstart = ticksToLstart(ticksA ? a : b);
  return asLstart === null ? null : asLstart === (ticksA ? b : a);
}

let bootTime: number | null | undefined;

/** `ps`'s `lstart` (C locale, UTC) for a /proc start in clock ticks; null without /proc/stat. */
export function ticksToLstart(ticks: string): string | null {
  if (bootTime === undefined) {
    try {
      bootTime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? Number.NaN);
      if (!Number.isFinite(bootTime)) bootTime = null;
    } catch {
      bootTime = null;
    }
  }
  if (bootTime === null) return null;
  const d = new Date((bootTime + Math.floor(Number(ticks) / USER_HZ)) * 1000);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  const time = d.toISOString().slice(11, 19);
  return `${day} ${mon} ${d.getUTCDate()} ${time} ${d.getUTCFullYear()}`;
}
