import { recordEvidence } from '../db/repos/evidence.ts';
import { lockSession } from '../db/repos/sessions.ts';
import type { StepContext } from '../services/sessions/step-context.ts';
import type { StoredEvent } from './stored-event.ts';

/**
 * A `deliver` the agent answered with `typed: false` never reached the CLI (no live process there,
 * not ready, or a stale generation): its lease is released (`leased → pending`, allowed by the queue
 * rules only on such proof) so the queue hands it over again once the session can take it. Only the
 * exact delivery (message id + the command that leased it) is released; anything else is left alone.
 * Returns the session to pump, or null.
 */
export async function releaseUntypedDelivery(ctx: StepContext, ev: StoredEvent): Promise<string | null> {
  const r = (ev.data ?? {}) as { command?: unknown; typed?: unknown; messageId?: unknown };
  if (r.command !== 'deliver' || r.typed !== false || typeof r.messageId !== 'string' || !ev.sessionId || !ev.commandId) return null;
  const row = await lockSession(ctx.tx, ev.sessionId);
  if (!row || row.nodeId !== ev.nodeId) return null;
  const u = await ctx.tx.message.updateMany({
    where: { id: r.messageId, sessionId: row.id, status: 'leased', deliveryId: ev.commandId },
    data: { status: 'pending', deliveryId: null, mainMessageId: null, leaseOwner: null },
  });
  if (u.count === 1) {
    await recordEvidence(ctx.tx, { sessionId: row.id, event: 'delivery_not_typed', actor: 'agent', from: row.state, to: row.state, at: ctx.now,
      evidence: { seq: Number(ev.seq), messageId: r.messageId } });
  }
  return row.id;
}
