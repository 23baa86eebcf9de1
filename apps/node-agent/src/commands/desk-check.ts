import type { Executor } from '@bria/core/protocol';
import { sameStart } from '../executors/process-table.ts';
import { deskHolders, endDeskCli, heldReason, toDeskHolder } from '../handoff/desk-guard.ts';
import type { Result, SessionRuntime } from './session-runtime.ts';

/**
 * The guard every path that launches a CLI on a known native id passes first (resume, crash
 * recovery, a Claude start again with its id): no process outside Bria's tmux may hold that id.
 * With `takeOver` (the user confirmed "Continue here" for exactly that process) it is ended first,
 * verifiably; any other holder, or one that does not end, refuses the launch with the reason.
 * Returns null when the launch may go on.
 */
export async function deskCheck(
  rt: SessionRuntime,
  o: {
    sessionId: string;
    generation: number;
    executor: Executor;
    nativeId: string;
    takeOver?: { pid: number; startTime: string };
  },
): Promise<Result | null> {
  const refuse = (code: 'held_elsewhere' | 'take_over_failed', reason: string, holder: Parameters<typeof toDeskHolder>[0]) => {
    rt.o.log('warn', 'agent.launch_refused_held', { sessionId: o.sessionId, code, pid: holder.pid });
    // Under the command's generation: a discovered session has no record here yet to take it from.
    rt.o.emit({
      event: 'resume_failed',
      sessionId: o.sessionId,
      generation: o.generation,
      payload: { reason: reason.slice(0, 500), code, holder: toDeskHolder(holder) },
    });
    return { ok: false, error: reason, refused: true, code };
  };
  const ctx = { env: rt.o.env, tmux: rt.o.tmux, briaPids: rt.adoptedPids() };
  let holders = await deskHolders(ctx, o.executor, o.nativeId);
  if (holders.length === 0) return null;
  const confirmed = (h: (typeof holders)[number]) =>
    o.takeOver !== undefined && h.pid === o.takeOver.pid && sameStart(h.startTime, o.takeOver.startTime) !== false;
  const stranger = holders.find((h) => !confirmed(h));
  if (stranger) return refuse('held_elsewhere', heldReason(stranger), stranger);
  for (const h of holders) {
    const r = await endDeskCli(h);
    rt.o.log('info', 'agent.take_over_end', { sessionId: o.sessionId, pid: h.pid, ended: r.ended, how: r.ended ? r.how : r.reason });
    if (!r.ended) return refuse('take_over_failed', `not continued here: ${r.reason}`, h);
  }
  // Proof, not hope: nothing outside Bria holds the id any more (a new terminal may have taken it meanwhile).
  holders = await deskHolders(ctx, o.executor, o.nativeId);
  const again = holders[0];
  return again ? refuse('held_elsewhere', heldReason(again), again) : null;
}
