import * as proc from './proc-tree.ts';
import type { ProcStat } from './proc-tree.ts';
import { portableTable } from './process-table-portable.ts';

export type { ProcStat } from './proc-tree.ts';

/**
 * Everything the agent learns about processes (trees, start time, liveness, exit) goes through one
 * of these. `startTime` is an opaque token: with the pid it names one process, and it is compared
 * only with a token of the same layer (Linux /proc: field 22 of stat, clock ticks since boot;
 * portable: `ps` `lstart`, see ps-output.ts). Identities recorded under one layer therefore do not
 * match under the other: switching layers makes running CLIs foreign to the agent (never re-bound
 * to a process that might be another one), as a recycled pid would.
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
  procStatsSync(pids: readonly number[]): Map<number, ProcStat>;
}

export type ProcessLayer = 'proc' | 'portable';
export const PROCESS_LAYERS = ['proc', 'portable'] as const satisfies readonly ProcessLayer[];

/** Linux: today's /proc reads (proc-tree.ts), unchanged. */
export const procTable: ProcessTable = {
  layer: 'proc',
  childrenOf: proc.childrenOf, processTree: proc.processTree, procStat: proc.procStat, isAlive: proc.isAlive,
  procExists: proc.procExists, procStatSync: proc.procStatSync, isAliveSync: proc.isAliveSync, processTreeSync: proc.processTreeSync,
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
export const procStatsSync = (pids: readonly number[]) => current.procStatsSync(pids);
