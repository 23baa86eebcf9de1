import { pumpDecision, type SessionEvent, type TimerName } from '../domain/index.ts';
import type { Db } from '../db/client.ts';
import { sessionIdsInStates } from '../db/repos/sessions.ts';
import { claimDueTimers, consumeTimer, type TimerDto } from '../db/repos/timers.ts';
import type { Logger } from '../log.ts';
import { readPumpView } from '../db/repos/messages.ts';
import { DISPATCHER_ID, pumpQueue } from './step/queue-pump.ts';
import { applyEvent, type Actor } from './step/session-step.ts';
import { type Clock, type StepContext, withSessionTx } from './step/step-context.ts';
import { handleAgentEvent } from './handle-agent-event.ts';
import { loadEvent, markProcessed, nextUnprocessed } from './stored-event.ts';

export interface EngineDeps {
  db: Db;
  log: Logger;
  clock: Clock;
  jitter: () => number;
  /** Refused agent facts for the terminal, counted per kind (`refusal-log.ts`). */
  refusals?: StepContext['refusals'];
}

/** Replays turn events that waited for a final to be saved, then settles the queue. */
async function finish(ctx: StepContext, sessionId: string | null): Promise<void> {
  for (let guard = 0; ctx.replay.length > 0 && guard < 1000; guard++) {
    const id = ctx.replay.shift();
    const ev = id === undefined ? null : await loadEvent(ctx.tx, id);
    if (ev) await handleAgentEvent(ctx, ev);
  }
  if (sessionId) await pumpQueue(ctx, sessionId);
}

/**
 * Processes the oldest unprocessed event of a node, exactly once: the effects and `processedAt`
 * commit together, under a per-node advisory lock so two engines never interleave one node's events.
 * Returns false when there was nothing to do (or another engine holds the node).
 */
export async function processNextEvent(d: EngineDeps, nodeId: string): Promise<boolean> {
  return withSessionTx(d.db, d, async (ctx) => {
    const locked = await ctx.tx.$queryRaw<{ ok: boolean }[]>`select pg_try_advisory_xact_lock(hashtext(${`bria_node_events:${nodeId}`})) as ok`;
    if (!locked[0]?.ok) return false;
    const ev = await nextUnprocessed(ctx.tx, nodeId);
    if (!ev) return false;
    const sessionId = await handleAgentEvent(ctx, ev);
    await finish(ctx, sessionId);
    await markProcessed(ctx.tx, ev.id, ctx.now);
    return true;
  });
}

const TIMER_EVENT: Record<TimerName, (attempt: number) => SessionEvent> = {
  lifetime: () => ({ type: 'lifetime_expired' }),
  recovery_retry: (attempt) => ({ type: 'recovery_retry_due', attempt }),
  final_save_retry: (attempt) => ({ type: 'final_save_retry_due', attempt }),
  // The stop's second drain (scheduled with attempt 2 when the first expired) ends the stop.
  stop_drain: (attempt) => (attempt >= 2 ? { type: 'stop_unresolved' } : { type: 'stop_drain_expired' }),
  archive_commit_retry: (attempt) => ({ type: 'archive_commit_retry_due', attempt }),
  resume_timeout: () => ({ type: 'resume_timed_out' }),
  close_retry: (attempt) => ({ type: 'close_retry_due', attempt }),
};

/** Fires one claimed timer under the session lock; a timer rescheduled or cancelled meanwhile is skipped. */
export async function fireTimer(d: EngineDeps, t: TimerDto): Promise<void> {
  await withSessionTx(d.db, d, async (ctx) => {
    await ctx.tx.$queryRaw`select id from "Session" where id = ${t.sessionId}::uuid for update`;
    if (!(await consumeTimer(ctx.tx, t))) return;
    // Not a session event: the wait after a `typed: false` answer is over, the pump looks again.
    // Nor is the end of a usage limit's wait (`limit_reset`): the pump reads the limit again.
    if (t.name === 'delivery_retry' || t.name === 'limit_reset') return finish(ctx, t.sessionId);
    const r = await applyEvent(ctx, t.sessionId, TIMER_EVENT[t.name](t.attempt), 'timer');
    if (!r.ok) d.log.info({ sessionId: t.sessionId, timer: t.name, refusal: r.refusal }, 'engine.timer_refused');
    await finish(ctx, t.sessionId);
  });
}

export async function fireDueTimers(d: EngineDeps): Promise<number> {
  const due = await claimDueTimers(d.db, d.clock.now(), { limit: 50, leaseMs: 30_000 });
  for (const t of due) {
    try {
      await fireTimer(d, t);
    } catch (err) {
      d.log.error({ sessionId: t.sessionId, timer: t.name, err: (err as Error).message }, 'engine.timer_failed');
    }
  }
  return due.length;
}

/** Hub facts and queue wake-ups for one session. */
export async function applyHubFact(d: EngineDeps, sessionId: string, event: SessionEvent | null, actor: Actor = 'hub'): Promise<void> {
  await withSessionTx(d.db, d, async (ctx) => {
    if (event) {
      const r = await applyEvent(ctx, sessionId, event, actor);
      if (!r.ok) d.log.debug({ sessionId, event: event.type, refusal: r.refusal }, 'engine.fact_refused');
    }
    await finish(ctx, sessionId);
  });
}

export async function pumpSession(d: EngineDeps, sessionId: string): Promise<void> {
  await applyHubFact(d, sessionId, null);
}

/**
 * A wake-up from a stored message: look first without a transaction or lock, and take the
 * session lock only when the gates would hand something over. Safe because every event that can
 * open a gate pumps inside its own transaction; this only saves work on busy sessions.
 */
export async function pumpIfNeeded(d: EngineDeps, sessionId: string): Promise<void> {
  const view = await readPumpView(d.db, sessionId);
  if (!view) return;
  if (pumpDecision(view.row, view.queue, view.hold, d.clock.now(), DISPATCHER_ID).kind === 'none') return;
  await pumpSession(d, sessionId);
}

export { sessionIdsInStates };
