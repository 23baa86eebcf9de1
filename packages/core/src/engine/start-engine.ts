import type { Db } from '../db/client.ts';
import { PgListener } from '../db/pg-listener.ts';
import type { Logger } from '../log.ts';
import { type Clock, systemClock } from './step/step-context.ts';
import { pushLifetimesEnding } from './lifetime-notice.ts';
import { fireDueSchedules } from './schedules.ts';
import { NodeWatch } from './node-watch.ts';
import { RefusalLog } from './refusal-log.ts';
import { applyHubFact, type EngineDeps, fireDueTimers, processNextEvent, pumpIfNeeded } from './session-work.ts';

export interface EngineOptions {
  db: Db;
  /** For the LISTEN connection (Prisma's pool cannot LISTEN). */
  databaseUrl: string;
  log: Logger;
  clock?: Clock;
  jitter?: () => number;
  /** Safety poll for events and queues whose NOTIFY was missed (e.g. while the engine was down). */
  safetyPollMs?: number;
  timerPollMs?: number;
  nodePollMs?: number;
  schedulePollMs?: number;
}

export interface Engine {
  stop(): Promise<void>;
  /** Runs every loop until nothing is left to do (tests and shutdown use it; production never needs it). */
  settle(): Promise<void>;
}

/**
 * The session engine inside the hub process: consumes stored agent events in (node, seq) order,
 * dispatches queued messages when the gates allow, fires durable timers and turns node
 * connectivity into facts. Postgres is the only shared state, so several engines may run.
 */
export async function startEngine(opts: EngineOptions): Promise<Engine> {
  const log = opts.log.child({ component: 'engine' });
  const clock = opts.clock ?? systemClock;
  const refusals = new RefusalLog({ log, clock });
  const d: EngineDeps = { db: opts.db, log, clock, jitter: opts.jitter ?? Math.random, refusals };
  const watch = new NodeWatch(d);
  const nodeRuns = new Map<string, { again: boolean; done: Promise<void> }>();
  const busy = new Set<Promise<unknown>>();
  const intervals: NodeJS.Timeout[] = [];
  let stopped = false;

  const track = <T>(p: Promise<T>): Promise<T> => {
    busy.add(p);
    void p.finally(() => busy.delete(p)).catch(() => {});
    return p;
  };
  const guard = (what: string, fn: () => Promise<unknown>) =>
    track(fn().catch((err) => d.log.error({ err: (err as Error).message, what }, 'engine.loop_failed')));

  /** One drain per node at a time in this process; a NOTIFY during a drain makes it run again. */
  const drainNode = (nodeId: string): Promise<void> => {
    const running = nodeRuns.get(nodeId);
    if (running) {
      running.again = true;
      return running.done;
    }
    const run = { again: false, done: Promise.resolve() };
    run.done = track(
      (async () => {
        let failures = 0;
        do {
          run.again = false;
          while (!stopped) {
            try {
              if (!(await processNextEvent(d, nodeId))) break;
              failures = 0;
            } catch (err) {
              failures += 1;
              d.log.error({ nodeId, err: (err as Error).message, failures }, 'engine.event_failed');
              if (failures >= 5) return; // the safety poll retries later; order is never skipped
              await new Promise((r) => setTimeout(r, 50 * failures));
            }
          }
        } while (run.again && !stopped);
      })().finally(() => nodeRuns.delete(nodeId)),
    );
    nodeRuns.set(nodeId, run);
    return run.done;
  };

  /** Wake-ups for one session coalesce: one pump runs at a time, a wake during it makes it run once more. */
  const wakes = new Map<string, { again: boolean }>();
  const wake = (sessionId: string): void => {
    const w = wakes.get(sessionId);
    if (w) {
      w.again = true;
      return;
    }
    const state = { again: false };
    wakes.set(sessionId, state);
    void guard('wake', async () => {
      try {
        do {
          state.again = false;
          await pumpIfNeeded(d, sessionId);
        } while (state.again && !stopped);
      } finally {
        wakes.delete(sessionId);
      }
    });
  };

  const pendingNodes = async () =>
    (await d.db.agentEvent.findMany({ where: { processedAt: null }, distinct: ['nodeId'], select: { nodeId: true } })).map((r) => r.nodeId);
  const waitingSessions = async () =>
    (await d.db.message.findMany({ where: { status: 'pending' }, distinct: ['sessionId'], select: { sessionId: true }, take: 500 })).map((r) => r.sessionId);

  const safetyPass = async () => {
    await Promise.all((await pendingNodes()).map((n) => drainNode(n)));
    for (const s of await waitingSessions()) await pumpIfNeeded(d, s);
  };

  // After a lost LISTEN connection comes back, the NOTIFYs sent meanwhile are gone: catch up at once.
  const listener = new PgListener({
    databaseUrl: opts.databaseUrl,
    channels: ['bria_agent_events', 'bria_session_wake'],
    onNotify: (channel, payload) => {
      if (stopped || !payload) return;
      if (channel === 'bria_agent_events') void drainNode(payload);
      else if (channel === 'bria_session_wake') wake(payload);
    },
    onListening: (reconnected) => {
      if (reconnected && !stopped) void guard('safety', safetyPass);
    },
    onError: (err) => d.log.warn({ err: err.message }, 'engine.listen_error'),
  });
  await listener.start();

  await watch.tick();
  // A resume failure whose notice is stored but whose return to Archived did not commit is finished now.
  for (const r of await d.db.session.findMany({ where: { state: 'ResumeFailed' }, select: { id: true } })) {
    await guard('resume_failed', () => applyHubFact(d, r.id, { type: 'resume_failure_reported' }));
  }
  await safetyPass();
  const every = (ms: number, what: string, fn: () => Promise<unknown>) => {
    let running = false;
    intervals.push(
      setInterval(() => {
        if (running || stopped) return;
        running = true;
        void guard(what, fn).finally(() => {
          running = false;
        });
      }, ms),
    );
  };
  every(opts.safetyPollMs ?? 2000, 'safety', safetyPass);
  every(opts.timerPollMs ?? 200, 'timers', () => fireDueTimers(d));
  every(opts.nodePollMs ?? 1000, 'nodes', () => watch.tick());
  every(60_000, 'lifetime_notice', () => pushLifetimesEnding(d));
  // Scheduled messages (issue 33): due ones fire within a second.
  every(opts.schedulePollMs ?? 1000, 'schedules', () => fireDueSchedules(d));
  // Summary lines of refused facts whose counting window is over.
  intervals.push(setInterval(() => refusals.flush(), 1000));
  d.log.info('engine.started');

  return {
    async settle() {
      for (let i = 0; i < 50; i++) {
        while (busy.size > 0) await Promise.allSettled([...busy]);
        await watch.tick();
        const fired = await fireDueTimers(d);
        const nodes = await pendingNodes();
        await Promise.all(nodes.map((n) => drainNode(n)));
        if (busy.size === 0 && fired === 0 && (await pendingNodes()).length === 0) return;
      }
    },
    async stop() {
      stopped = true;
      for (const t of intervals) clearInterval(t);
      while (busy.size > 0) await Promise.allSettled([...busy]);
      await listener.stop();
      refusals.flush({ all: true });
      d.log.info('engine.stopped');
    },
  };
}
