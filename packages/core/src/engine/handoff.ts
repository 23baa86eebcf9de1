import { type HandoffEvent, handoffOf, handoffTransition } from '../domain/index.ts';
import type { DeskHolder } from '../protocol/index.ts';
import type { StepContext } from './step/step-context.ts';

/** The desk columns for a holder, or cleared. */
export function deskFields(h: DeskHolder | null, now: Date) {
  return h
    ? {
        deskPid: h.pid,
        deskStart: h.startTime,
        deskSince: h.since === undefined ? null : new Date(h.since),
        deskCommand: h.command,
        deskInTmux: h.inTmux,
        deskSeenAt: now,
      }
    : { deskPid: null, deskStart: null, deskSince: null, deskCommand: null, deskInTmux: false, deskSeenAt: now };
}

/**
 * A handoff fact applied to one session row through the domain table (domain/handoff.ts): the row
 * keeps its handoff state and desk columns as the table decides; an illegal move changes nothing
 * and is logged. Returns the state after it.
 */
export async function applyHandoff(ctx: StepContext, sessionId: string, event: HandoffEvent, holder: DeskHolder | null | undefined): Promise<string | null> {
  const row = await ctx.tx.session.findUnique({ where: { id: sessionId }, select: { handoff: true } });
  if (!row) return null;
  const r = handoffTransition(handoffOf(row.handoff), event);
  if (!r.ok) {
    ctx.log.info({ sessionId, handoff: row.handoff, event }, 'engine.handoff_ignored');
    return row.handoff;
  }
  // While a take-over runs, discovery still sees the desk CLI until it has ended: its report
  // refreshes the columns, the state stays. Desk columns follow the newest physical report.
  const desk = holder === undefined ? {} : deskFields(holder, ctx.now);
  await ctx.tx.session.update({ where: { id: sessionId }, data: { handoff: r.next, ...desk }, select: { id: true } });
  return r.next;
}

/** What a resume's answer teaches about the desk: a holder refused it, or Bria's CLI reopened the session. */
export async function handoffFromAgent(ctx: StepContext, sessionId: string, e: { name: string; payload: unknown }): Promise<void> {
  if (e.name !== 'resume_confirmed' && e.name !== 'resume_failed' && e.name !== 'session_closed') return;
  const row = await ctx.tx.session.findUnique({ where: { id: sessionId }, select: { handoff: true } });
  const state = handoffOf(row?.handoff);
  if (e.name === 'session_closed') {
    // An adopted session closed in Bria: its pane released, the CLI left at the desk (docs/handoff.md).
    if (state === 'adopted') await applyHandoff(ctx, sessionId, 'released', null);
    return;
  }
  if (state === 'adopting') {
    // The adoption's answer: bound to the desk CLI's pane, or refused with its reason (the desk
    // columns stay as on record; discovery's next look confirms or clears them).
    await applyHandoff(ctx, sessionId, e.name === 'resume_confirmed' ? 'adopt_confirmed' : 'adopt_refused', undefined);
    return;
  }
  if (e.name === 'resume_confirmed') {
    await applyHandoff(ctx, sessionId, 'resumed_in_bria', null);
    return;
  }
  const p = e.payload as { code?: string; holder?: DeskHolder };
  const takingOver = state === 'taking_over';
  if (p.holder && (p.code === 'held_elsewhere' || p.code === 'take_over_failed')) {
    await applyHandoff(ctx, sessionId, takingOver ? 'take_over_refused' : 'desk_seen', p.holder);
  } else if (takingOver) {
    // The take-over's resume failed for another cause: back to the desk record, which discovery's
    // next look confirms or clears (the desk CLI may have ended by then).
    await applyHandoff(ctx, sessionId, 'take_over_refused', undefined);
  }
}
