import { type MessageStatus, outcomeNoticeReason, telegramOrigin } from '../../domain/index.ts';
import { enqueueOutbox } from './outbox.ts';
import type { Tx } from './sessions.ts';

/**
 * The one notice of a message whose turn ended without a final, written with the outcome itself.
 * It goes to the Telegram chat the message came from, as a reply to it; a message sent from the
 * dashboard (or the API) gets none: the dashboard shows each message's outcome under the message.
 * The key holds the message id and the outcome: a repeated write of the same outcome never makes a
 * second notice, a later re-check that finds another outcome (e.g. `unknown` → `terminal_failed`) says so once.
 */
export async function noticeOutcome(tx: Tx, o: { messageId: string; to: MessageStatus; detail: string | null; now: Date }): Promise<void> {
  if (o.to === 'completed' || o.to === 'pending' || o.to === 'leased' || o.to === 'accepted') return;
  const m = await tx.message.findUnique({
    where: { id: o.messageId },
    select: { sessionId: true, source: true, sourceKey: true, finalText: true, mainMessageId: true, session: { select: { nodeId: true } } },
  });
  const origin = m ? telegramOrigin(m.source, m.sourceKey) : null;
  if (!m || !origin) return;
  const main = m.mainMessageId ? await tx.message.findUnique({ where: { id: m.mainMessageId }, select: { finalText: true } }) : null;
  const reason = outcomeNoticeReason({ to: o.to, detail: o.detail, turnHasFinal: m.finalText !== null || (main?.finalText ?? null) !== null });
  if (!reason) return;
  await enqueueOutbox(tx, {
    channel: 'telegram',
    dedupeKey: `outcome:${o.messageId}:${o.to}`,
    chatId: origin.chatId,
    now: o.now,
    payload: {
      kind: 'message_outcome',
      sessionId: m.sessionId,
      nodeId: m.session.nodeId,
      messageId: o.messageId,
      status: o.to,
      reason,
      replyTo: origin.messageId,
    },
  });
}
