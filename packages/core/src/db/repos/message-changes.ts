import type { MessageStatus } from '../../domain/index.ts';
import type { Tx } from './sessions.ts';

// Queue control (issue 33): the reads and guarded writes behind cancelling or editing a message
// still waiting in the queue (services/sessions/change-message.ts).

/** What a cancel or edit needs to know about a message (`domain/message-change.ts`). */
export async function readMessageForChange(
  tx: Tx,
  id: string,
): Promise<{
  id: string;
  sessionId: string;
  seq: number;
  status: MessageStatus;
  deliveryId: string | null;
  text: string;
  originalText: string | null;
  source: string;
  sourceKey: string | null;
} | null> {
  return tx.message.findUnique({
    where: { id },
    select: { id: true, sessionId: true, seq: true, status: true, deliveryId: true, text: true, originalText: true, source: true, sourceKey: true },
  });
}

/** Cancels a message still pending with no `deliver` issued; 0 rows = it moved meanwhile. */
export async function cancelPendingMessage(tx: Tx, m: { id: string; now: Date }): Promise<boolean> {
  const r = await tx.message.updateMany({
    where: { id: m.id, status: 'pending', deliveryId: null },
    data: { status: 'cancelled', outcomeAt: m.now, outcomeDetail: 'cancelled by the user', leaseOwner: null, leaseUntil: null },
  });
  return r.count === 1;
}

/** Replaces the text of a message still pending with no `deliver` issued, keeping the first text once. */
export async function editPendingMessage(tx: Tx, m: { id: string; text: string; originalText: string }): Promise<boolean> {
  const r = await tx.message.updateMany({ where: { id: m.id, status: 'pending', deliveryId: null }, data: { text: m.text, originalText: m.originalText } });
  return r.count === 1;
}
