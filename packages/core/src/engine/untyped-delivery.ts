import { recordEvidence } from '../db/repos/evidence.ts';
import { lockSession } from '../db/repos/sessions.ts';
import { ATTACHMENT_NOT_STORED, failAttachmentMessage } from '../services/sessions/carry-attachments.ts';
import type { StepContext } from '../services/sessions/step-context.ts';
import type { StoredEvent } from './stored-event.ts';

/**
 * A `deliver` the agent answered with `typed: false` never reached the CLI (no live process there,
 * not ready, or a stale generation): its lease is released (`leased → pending`, allowed by the queue
 * rules only on such proof) so the queue hands it over again once the session can take it. Only the
 * exact delivery (message id + the command that leased it) is released; anything else is left alone.
 * One the node refused because it could not store an attachment is failed instead (see below).
 * Returns the session to pump, or null.
 */
export async function releaseUntypedDelivery(ctx: StepContext, ev: StoredEvent): Promise<string | null> {
  const r = (ev.data ?? {}) as { command?: unknown; typed?: unknown; messageId?: unknown; attachmentError?: unknown };
  if (r.command !== 'deliver' || r.typed !== false || typeof r.messageId !== 'string' || !ev.sessionId || !ev.commandId) return null;
  const row = await lockSession(ctx.tx, ev.sessionId);
  if (!row || row.nodeId !== ev.nodeId) return null;
  if (typeof r.attachmentError === 'string') {
    // The node could not store the attachment: handing it over again would fail the same way, and the
    // CLI never saw it, so the message fails as an attachment problem, never as the executor's.
    const m = await ctx.tx.message.findFirst({ where: { id: r.messageId, sessionId: row.id, status: 'leased', deliveryId: ev.commandId }, select: { id: true } });
    if (m) await failAttachmentMessage(ctx, row, m.id, ATTACHMENT_NOT_STORED, r.attachmentError);
    return row.id;
  }
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
