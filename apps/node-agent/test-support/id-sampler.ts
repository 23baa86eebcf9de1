import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type NativeHolder, scanHolders } from '../src/handoff/native-holders.ts';

/** One native id held by more than one process at one look, with how each was recognised. */
export interface DoubleHolding {
  at: string;
  nativeId: string;
  holders: (NativeHolder & { ps: string })[];
}

/** Whether a process runs with this HOME (false once it is gone). */
export function runsWithHome(pid: number, home: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`HOME=${home}`);
  } catch {
    return false;
  }
}

/** A process's pid, parent, state and command line for a failure message ('' once it is gone). */
function ps(pid: number): string {
  try {
    return execFileSync('ps', ['-o', 'pid=,ppid=,stat=,args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/**
 * For real-CLI tests of "never two CLIs on one native id": reads the process table every 100 ms with
 * the agent's own holder scan (argv, open journals, Claude's live registry) and records, per native
 * id, the most processes seen holding it at once. Only processes running with this test's HOME
 * count: the suite's other files run CLIs on the same machine at the same time. Each double is kept
 * whole (the first five), so a failure names the processes.
 */
export class NativeIdSampler {
  readonly max = new Map<string, number>();
  readonly doubles: DoubleHolding[] = [];
  seen = 0;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private readonly mine = new Map<number, boolean>();

  constructor(private readonly o: { claudeHome: string | null; home: string }) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      scanHolders({ claudeHome: this.o.claudeHome, briaServerPid: null })
        .then((all) => this.count(all))
        .finally(() => {
          this.busy = false;
        });
    }, 100);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private ofThisTest(pid: number): boolean {
    let mine = this.mine.get(pid);
    if (mine === undefined) {
      mine = runsWithHome(pid, this.o.home);
      // A pid gone before it could be looked at is asked again (it is not counted meanwhile).
      if (mine) this.mine.set(pid, mine);
    }
    return mine;
  }

  private count(found: NativeHolder[]): void {
    this.seen++;
    const all = found.filter((h) => this.ofThisTest(h.pid));
    const per = new Map<string, Set<number>>();
    for (const h of all) per.set(h.nativeId, (per.get(h.nativeId) ?? new Set()).add(h.pid));
    for (const [id, pids] of per) {
      this.max.set(id, Math.max(this.max.get(id) ?? 0, pids.size));
      if (pids.size > 1 && this.doubles.length < 5)
        this.doubles.push({
          at: new Date().toISOString(),
          nativeId: id,
          holders: all.filter((h) => h.nativeId === id).map((h) => ({ ...h, ps: ps(h.pid) })),
        });
    }
  }
}
