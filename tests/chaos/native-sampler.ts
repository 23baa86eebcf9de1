import { execFileSync } from 'node:child_process';
import { type NativeHolder, scanHolders } from '../../apps/node-agent/src/handoff/native-holders.ts';

/**
 * The invariant "never two CLIs on one native id", watched through a whole chaos run: the process
 * table is read every 100 ms (the agent's own holder scan: argv, open journals, Claude's live
 * registry) and every native id held by two processes at once is judged by who came second.
 * - Bria's CLI started while another process already held the id: Bria started a second CLI — a
 *   violation (its guard must refuse or take over first).
 * - Two of Bria's own CLIs on one id: a violation.
 * - A CLI started by hand beside Bria's running one (the `desk_start` fault's doing, as a person at
 *   the computer could): not Bria's act; listed as explained.
 */
export class NativeSampler {
  readonly violations = new Set<string>();
  readonly explained = new Set<string>();
  samples = 0;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private serverPid: number | null = null;
  private serverAt = 0;

  constructor(
    private readonly o: { claudeHome: string; tmuxSocket: string },
    private readonly interval = 100,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      scanHolders({ claudeHome: this.o.claudeHome, briaServerPid: this.briaServer() })
        .then((all) => this.judge(all))
        .catch(() => undefined)
        .finally(() => {
          this.busy = false;
        });
    }, this.interval);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The agent's tmux server pid (its panes' CLIs are Bria's), looked up again every second. */
  private briaServer(): number | null {
    if (Date.now() - this.serverAt < 1000) return this.serverPid;
    this.serverAt = Date.now();
    try {
      const out = execFileSync('tmux', ['-L', this.o.tmuxSocket, 'display-message', '-p', '#{pid}'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      this.serverPid = Number(out.trim()) || null;
    } catch {
      this.serverPid = null;
    }
    return this.serverPid;
  }

  private judge(all: NativeHolder[]): void {
    this.samples++;
    const per = new Map<string, NativeHolder[]>();
    for (const h of all) per.set(h.nativeId, [...(per.get(h.nativeId) ?? []).filter((x) => x.pid !== h.pid), h]);
    for (const [id, holders] of per) {
      if (holders.length < 2) continue;
      const bria = holders.filter((h) => h.bria);
      const desk = holders.filter((h) => !h.bria);
      if (bria.length > 1) {
        this.violations.add(`two of Bria's CLIs on native ${id}: ${bria.map(describe).join('; ')}`);
        continue;
      }
      const mine = bria[0];
      if (!mine) continue; // processes outside Bria only: not Bria's to judge
      for (const d of desk) {
        const order = startOrder(mine.startTime, d.startTime);
        if (order === null) this.violations.add(`two CLIs on native ${id} (pids ${mine.pid}, ${d.pid}), order unknown`);
        else if (order > 0) this.violations.add(`Bria started a CLI on native ${id} (${describe(mine)}) while another held it (${describe(d)})`);
        else this.explained.add(`a CLI started by hand (pid ${d.pid}) beside Bria's running one on native ${id}`);
      }
    }
  }
}

/** > 0 when `a` started after `b`; null when the tokens cannot be compared (`/proc` start ticks are numbers). */
function startOrder(a: string, b: string): number | null {
  const x = Number(a);
  const y = Number(b);
  return Number.isFinite(x) && Number.isFinite(y) ? x - y : null;
}

const describe = (h: NativeHolder): string => `pid ${h.pid} (ppid ${h.ppid}, start ${h.startTime}, via ${h.via}): ${h.command.slice(0, 120)}`;
