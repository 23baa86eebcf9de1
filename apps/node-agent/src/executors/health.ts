import { setTimeout as sleep } from 'node:timers/promises';
import type { PaneStates, Tmux } from '../tmux/tmux.ts';
import { isAliveSync, procStatSync, processTreeSync, sameStart } from './process-table.ts';
import { detectBlockingPrompt } from './screen.ts';
import type { SessionIdentity } from './types.ts';

export type Health = { alive: true; pids: number[] } | { alive: false; paneDead: boolean; paneGone: boolean; cliAlive: boolean };

/** Is the pane alive and is its CLI still the very process we started (same pid and start time)? */
export async function probeHealth(tmux: Tmux, id: SessionIdentity): Promise<Health> {
  const pane = await tmux.paneInfo(id.paneId);
  const st = procStatSync(id.cliPid);
  const cliAlive = st !== null && st.state !== 'Z' && sameStart(id.cliStartTime, st.startTime) !== false;
  if (pane && !pane.dead && cliAlive) return { alive: true, pids: processTreeSync(id.panePid) };
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
 * Event-driven (the normal case): the tmux server reports every pane's dead flag through the
 * control client's subscription (`Tmux.watchPanes`), once a second and only on change, so death
 * costs the agent nothing to watch. The wrapper shell waits for the CLI and exits right after it,
 * so the CLI's death turns the pane dead: a killed CLI is reported ≤ ~1 s (tmux's subscription
 * timer) + 200 ms (the exit-status pause) after it died, as with the former 1 s poll.
 *  - idle (no turn running): one full probe (the pane, one tmux command, and the CLI's process tree,
 *    kept for the death report) every IDLE_PROBE_MS, as a safety net; nothing in between.
 *  - a turn running: a tick every `intervalMs` looks for a question on screen (one capture), and a
 *    full probe every FULL_PROBE_EVERY ticks refreshes the process tree (tools come and go).
 * Without the subscription (no control client): each tick (`intervalMs`) reads the CLI's stat and a
 * full probe runs every FULL_PROBE_EVERY ticks, or at once when the CLI is gone.
 * What a read costs depends on the process layer (process-table.ts; docs/benchmarks.md, "Process
 * layers"): /proc, a few µs per stat and 0.7 ms per full probe; the portable layer runs `ps`
 * synchronously, ~10 ms per stat and ~30 ms per full probe (a stat and a tree), mostly in the `ps`
 * child. The event-driven rhythm above keeps that to one probe a minute per idle session; the
 * polling fallback with the portable layer pays one `ps` per session per tick.
 */
const FULL_PROBE_EVERY = 15;
const IDLE_PROBE_MS = 60_000;

/**
 * Watches one pane: its death (reported once, with the wrapper's exit status), the process tree
 * while alive, and, while work runs, a question on screen.
 */
export class HealthMonitor {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private slow = false;
  private ticks = 0;
  private knownPids: number[] = [];
  private lastBlocked: string | null = null;
  private busy = false;
  private probeAgain = false;
  private unwatch: (() => void) | null = null;

  constructor(
    private readonly o: {
      tmux: Tmux;
      identity: SessionIdentity;
      intervalMs: number;
      workRunning: () => boolean;
      onBlocked: (promptText: string) => void;
      onDeath: (report: DeathReport) => void;
    },
  ) {}

  start(): void {
    this.running = true;
    this.unwatch = this.o.tmux.watchPanes((panes) => this.onPanes(panes));
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.unwatch?.();
    this.unwatch = null;
  }

  /** A turn started: leave the slow idle rhythm at once (questions on screen are looked for). */
  poke(): void {
    if (this.running && this.slow) this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.running) return;
    this.slow = this.knownPids.length > 0 && this.o.tmux.paneStates !== null && !this.o.workRunning();
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.tick(false)
          .catch(() => undefined)
          .finally(() => this.schedule());
      },
      this.slow ? IDLE_PROBE_MS : this.o.intervalMs,
    );
    this.timer.unref();
  }

  // The pane is dead or gone (its session was killed): probe now. A probe also settles a pane that
  // merely is not in a notification sent before it was created. Unknown states (no control client)
  // switch to polling.
  private onPanes(panes: PaneStates): void {
    if (panes === null) {
      if (this.slow) this.schedule();
      return;
    }
    if (panes.get(this.o.identity.paneId) === false) return;
    void this.tick(true).catch(() => undefined);
  }

  private async tick(forced: boolean): Promise<void> {
    if (!this.running) return;
    if (this.busy) {
      // A death notification comes once; it must not be lost behind a running tick.
      if (forced) this.probeAgain = true;
      return;
    }
    this.busy = true;
    try {
      await this.check(forced);
    } finally {
      this.busy = false;
    }
    if (this.probeAgain && this.running) {
      this.probeAgain = false;
      await this.tick(true);
    }
  }

  private async check(forced: boolean): Promise<void> {
    const { tmux, identity: id } = this.o;
    this.ticks += 1;
    const watched = tmux.paneStates !== null;
    const working = this.o.workRunning();
    const idle = watched && !working;
    if (!forced && !idle && this.knownPids.length > 0 && this.ticks % FULL_PROBE_EVERY !== 0) {
      if (watched) {
        await this.checkBlocked();
        return;
      }
      const st = procStatSync(id.cliPid);
      if (st !== null && st.state !== 'Z' && sameStart(id.cliStartTime, st.startTime) !== false) {
        if (working) await this.checkBlocked();
        return;
      }
    }
    const health = await probeHealth(tmux, id);
    if (health.alive) {
      this.knownPids = health.pids;
      if (working) await this.checkBlocked();
      return;
    }
    if (!this.running) return;
    this.stop();
    await sleep(200); // the wrapper records the status right after the CLI ends
    const after = await tmux.paneInfo(id.paneId);
    const stillAlive = this.knownPids.filter((p) => isAliveSync(p));
    this.o.onDeath({
      pids: this.knownPids,
      stillAlive,
      exitStatus: await tmux.readExitStatus(id.exitFile, 2_000),
      paneDead: after === null || after.dead,
      health,
    });
  }

  private async checkBlocked(): Promise<void> {
    const text = await blockingPrompt(this.o.tmux, this.o.identity.paneId);
    if (text && text !== this.lastBlocked) this.o.onBlocked(text);
    this.lastBlocked = text;
  }
}
