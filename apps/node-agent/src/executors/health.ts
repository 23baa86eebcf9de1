import { setTimeout as sleep } from 'node:timers/promises';
import type { Tmux } from '../tmux/tmux.ts';
import { isAlive, procStat, processTree } from './proc-tree.ts';
import { detectBlockingPrompt } from './screen.ts';
import type { SessionIdentity } from './types.ts';

export type Health =
  | { alive: true; pids: number[] }
  | { alive: false; paneDead: boolean; paneGone: boolean; cliAlive: boolean };

/** Is the pane alive and is its CLI still the very process we started (same pid and start time)? */
export async function probeHealth(tmux: Tmux, id: SessionIdentity): Promise<Health> {
  const pane = await tmux.paneInfo(id.paneId);
  const st = await procStat(id.cliPid);
  const cliAlive = st !== null && st.state !== 'Z' && st.startTime === id.cliStartTime;
  if (pane && !pane.dead && cliAlive) return { alive: true, pids: await processTree(id.panePid) };
  return { alive: false, paneDead: pane?.dead ?? true, paneGone: pane === null, cliAlive };
}

/** A question on screen (trust, permission…) that the CLI waits on; null when there is none. */
export async function blockingPrompt(tmux: Tmux, paneId: string): Promise<string | null> {
  return detectBlockingPrompt(await tmux.capture(paneId).catch(() => ''));
}

export interface DeathReport {
  pids: number[];
  stillAlive: number[];
  exitStatus: number | null;
  paneDead: boolean;
  health: Health;
}

/**
 * A full probe (a tmux call and a walk of the process tree) costs ~16 ms of CPU; reading the CLI's
 * /proc stat costs ~0.6 ms. While the very CLI process we started is alive its pane is too (the
 * pane's process waits for it), so most ticks only read that stat and a full probe runs every
 * FULL_PROBE_EVERY ticks, or at once when the stat says the CLI is gone.
 */
const FULL_PROBE_EVERY = 15;

/**
 * Watches one pane once a second: the process tree while alive, a question on screen while work
 * runs, and the death of the pane or CLI (reported once, with the wrapper's exit status).
 */
export class HealthMonitor {
  private timer: NodeJS.Timeout | null = null;
  private ticks = 0;
  private knownPids: number[] = [];
  private lastBlocked: string | null = null;
  private busy = false;

  constructor(private readonly o: {
    tmux: Tmux;
    identity: SessionIdentity;
    intervalMs: number;
    workRunning: () => boolean;
    onBlocked: (promptText: string) => void;
    onDeath: (report: DeathReport) => void;
  }) {}

  start(): void {
    this.timer = setInterval(() => void this.tick().catch(() => undefined), this.o.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async tick(): Promise<void> {
    if (this.busy || !this.timer) return;
    this.busy = true;
    try {
      const { tmux, identity: id } = this.o;
      this.ticks += 1;
      if (this.knownPids.length > 0 && this.ticks % FULL_PROBE_EVERY !== 0) {
        const st = await procStat(id.cliPid);
        if (st !== null && st.state !== 'Z' && st.startTime === id.cliStartTime) {
          await this.checkBlocked();
          return;
        }
      }
      const health = await probeHealth(tmux, id);
      if (health.alive) {
        this.knownPids = health.pids;
        await this.checkBlocked();
        return;
      }
      if (!this.timer) return;
      this.stop();
      await sleep(200); // the wrapper records the status right after the CLI ends
      const after = await tmux.paneInfo(id.paneId);
      const stillAlive: number[] = [];
      for (const p of this.knownPids) if (await isAlive(p)) stillAlive.push(p);
      this.o.onDeath({
        pids: this.knownPids, stillAlive, exitStatus: await tmux.readExitStatus(id.exitFile, 2_000),
        paneDead: after === null || after.dead, health,
      });
    } finally {
      this.busy = false;
    }
  }

  private async checkBlocked(): Promise<void> {
    if (!this.o.workRunning()) return;
    const text = await blockingPrompt(this.o.tmux, this.o.identity.paneId);
    if (text && text !== this.lastBlocked) this.o.onBlocked(text);
    this.lastBlocked = text;
  }
}
