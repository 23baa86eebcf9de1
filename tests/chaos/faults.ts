import { writeFileSync } from 'node:fs';
import { procAlive } from '../../packages/testkit/src/system.ts';
import type { ChaosSystem } from './chaos-system.ts';
import type { Prng } from './prng.ts';

export const FAULT_KINDS = ['hub_kill', 'bot_kill', 'agent_kill', 'cli_kill', 'pg_restart', 'ws_cut', 'ws_delay', 'bot_api', 'final_save', 'node_away'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
/** Faults that take a whole part of the system away; one at a time, so each one heals as planned. */
const OUTAGES = new Set<FaultKind>(['hub_kill', 'bot_kill', 'agent_kill', 'pg_restart', 'node_away']);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Injects one fault at a time of the outage kinds (plus light faults at any moment) and heals it
 * in the background, so user actions keep coming during the outage. `healAll` ends every fault.
 */
export class FaultInjector {
  readonly counts: Record<FaultKind, number> = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  private outage: Promise<void> | null = null;
  private healing = new Set<Promise<void>>();
  readonly errors: string[] = [];

  constructor(private readonly sys: ChaosSystem, private readonly rng: Prng, private readonly sessionIds: () => string[]) {}

  /** The engine (in the hub's process) refuses every final write until `until` (ms since the epoch). */
  private refuseFinalsUntil(until: number): void {
    writeFileSync(this.sys.finalSaveFile, String(until));
  }

  /** Picks and starts one fault; returns its kind, or null when an outage is still healing. */
  async inject(): Promise<FaultKind | null> {
    const kind = this.rng.weighted<FaultKind>({ hub_kill: 2, bot_kill: 2, agent_kill: 2, cli_kill: 2, pg_restart: 1, ws_cut: 3, ws_delay: 2, bot_api: 3, final_save: 2, node_away: 1 });
    if (OUTAGES.has(kind) && this.outage) return null;
    const done = this.run(kind).catch((err: Error) => {
      this.errors.push(`${kind}: ${err.message}`);
    });
    if (OUTAGES.has(kind)) this.outage = done.finally(() => (this.outage = null));
    else this.track(done);
    this.counts[kind]++;
    return kind;
  }

  private track(p: Promise<void>): void {
    this.healing.add(p);
    void p.finally(() => this.healing.delete(p));
  }

  private async run(kind: FaultKind): Promise<void> {
    const { sys, rng } = this;
    switch (kind) {
      case 'hub_kill':
        await sys.killHub();
        await sleep(rng.int(200, 2500));
        await sys.startHub();
        return;
      case 'bot_kill':
        await sys.killBot();
        await sleep(rng.int(200, 3000));
        await sys.startBot();
        return;
      case 'agent_kill':
        await sys.killAgent();
        await sleep(rng.int(200, 3000));
        await sys.startAgent();
        return;
      case 'cli_kill': {
        const ids = this.sessionIds();
        if (ids.length === 0) return;
        // Postgres may be restarting (another fault): then this fault has no target and is skipped.
        const s = await sys.db.session.findUnique({ where: { id: rng.pick(ids) } }).catch(() => null);
        const pid = (s?.identity as { host?: { cliPid?: number } } | null)?.host?.cliPid;
        if (pid && procAlive(pid)) process.kill(pid, 'SIGKILL');
        return;
      }
      case 'pg_restart':
        await sys.cluster.restart(rng.int(200, 2000));
        return;
      case 'ws_cut':
        sys.proxy.cut();
        return;
      case 'ws_delay':
        sys.proxy.delayMs = rng.int(50, 600);
        await sleep(rng.int(1000, 5000));
        sys.proxy.delayMs = 0;
        return;
      case 'bot_api': {
        const method = rng.pick(['sendMessage', 'editMessageText', '*']);
        const fault = rng.pick([{ code: 429, retryAfter: 1 }, { code: 500 }, { code: 502, html: true }, { timeoutMs: rng.int(500, 4000) }] as const);
        sys.fake.failNext(method, fault, rng.int(1, 3));
        return;
      }
      case 'final_save':
        this.refuseFinalsUntil(Date.now() + rng.int(1000, 12_000));
        return;
      case 'node_away': {
        // The node's network is gone past the quick part of the re-attach schedule (1, 2, 5, 10 s,
        // then 30 s): sessions must wait in AwaitingRecovery, never be archived or replaced. Real
        // time, not the engine's clock: everything it stamps (outbox, timers) must stay truthful.
        sys.proxy.refusing = true;
        sys.proxy.cut();
        await sleep(rng.int(20_000, 35_000));
        sys.proxy.refusing = false;
        return;
      }
      default:
        kind satisfies never;
    }
  }

  /** Ends every fault and waits for the running outage to finish healing. */
  async healAll(): Promise<void> {
    this.refuseFinalsUntil(0);
    await this.outage;
    await Promise.allSettled([...this.healing]);
    this.sys.proxy.delayMs = 0;
    this.sys.proxy.refusing = false;
    this.sys.fake.clearFaults();
  }

  dispose(): void {
    this.refuseFinalsUntil(0);
  }
}
