import type { Db } from '../../db/client.ts';
import type { Tx } from '../../db/repos/sessions.ts';
import type { Logger } from '../../log.ts';
import type { Refusal } from '../refusal-log.ts';

/** Time source; tests pass a controllable one. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** Everything one session step needs inside its transaction. */
export interface StepContext {
  tx: Tx;
  now: Date;
  log: Logger;
  /** Random number in [0, 1) for backoff jitter. */
  jitter: () => number;
  /** Agent events deferred during a final-save failure, to be replayed once the final is saved. */
  replay: bigint[];
  /** Set when a final write failed in this step: the short, safe cause the `final_save/failing` notice shows. */
  finalSaveCause?: string;
  /** The engine's terminal log of refused facts (one line per kind with a count); absent: one log line each. */
  refusals?: { note(r: Refusal): void };
}

export class VersionConflict extends Error {
  constructor(readonly sessionId: string) {
    super('session version changed underneath');
  }
}

/**
 * Runs `fn` in one transaction. A lost optimistic race (0 rows for id+version) reloads by
 * running the whole step again.
 */
export async function withSessionTx<T>(
  db: Db,
  o: { log: Logger; clock: Clock; jitter?: () => number; refusals?: StepContext['refusals'] },
  fn: (ctx: StepContext) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const base = { now: o.clock.now(), log: o.log, jitter: o.jitter ?? Math.random, replay: [], ...(o.refusals ? { refusals: o.refusals } : {}) };
      return await db.$transaction(async (tx) => fn({ tx, ...base }), {
        timeout: 20_000,
        maxWait: 10_000,
      });
    } catch (err) {
      if (err instanceof VersionConflict && attempt < 5) continue;
      throw err;
    }
  }
}
