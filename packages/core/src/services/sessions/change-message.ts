import { AppError, decideMessageChange, MESSAGE_CHANGE_REFUSAL_TEXT, type MessageChange, type MessageStatus, telegramOrigin } from '../../domain/index.ts';
import { enqueueOutbox } from '../../db/repos/outbox.ts';
import { cancelPendingMessage, editPendingMessage, readMessageForChange } from '../../db/repos/message-changes.ts';
import { lockSession, type Tx } from '../../db/repos/sessions.ts';
import { checkMessageText } from './accept-message.ts';
import { depsOf, type ServiceDeps } from './session-dto.ts';

export interface ChangeMessageInput {
  messageId: string;
  /** The session the caller acts in (the bot's active session); a message of another one is "not found". */
  sessionId?: string;
  /**
   * Where the change was made. A change made on the dashboard to a message that came from Telegram
   * is told in that chat, as a reply to the message (its text there no longer says what the CLI gets).
   */
  from?: 'web' | 'telegram';
}
export interface ChangedMessageDto {
  id: string;
  sessionId: string;
  seq: number;
  status: MessageStatus;
}

/**
 * Cancels a queued message that was never handed to the CLI: it becomes `cancelled`, final, and is
 * never delivered. Refused with "already delivered" once a `deliver` exists for it (see
 * `domain/message-change.ts` for why that is the line).
 */
export async function cancelMessage(deps: ServiceDeps, input: ChangeMessageInput): Promise<ChangedMessageDto> {
  const { db, clock } = depsOf(deps);
  return db.$transaction(async (tx) => {
    const m = await lockedMessage(tx, 'cancel', input);
    if (!(await cancelPendingMessage(tx, { id: m.id, now: clock.now() }))) throw new Error('cancel lost under the session lock');
    if (input.from === 'web') await tellTelegramOrigin(tx, m, 'cancelled', clock.now());
    // The pump may have something to do now (the next message, or a drain the cancelled one held up).
    await wake(tx, m.sessionId);
    return { id: m.id, sessionId: m.sessionId, seq: m.seq, status: 'cancelled' as const };
  });
}

/**
 * Replaces the text of a queued message that was never handed to the CLI; the text first sent is
 * kept in `originalText`. The same bounds as sending apply.
 */
export async function editMessage(deps: ServiceDeps, input: ChangeMessageInput & { text: string }): Promise<ChangedMessageDto> {
  const { db, clock } = depsOf(deps);
  if (input.text.length === 0) throw new AppError('INVALID_INPUT', { message: 'empty message', reason: 'empty' });
  return db.$transaction(async (tx) => {
    const m = await lockedMessage(tx, 'edit', input);
    await checkMessageText(tx, m.sessionId, input.text);
    if (!(await editPendingMessage(tx, { id: m.id, text: input.text, originalText: m.originalText ?? m.text })))
      throw new Error('edit lost under the session lock');
    if (input.from === 'web' && input.text !== m.text) await tellTelegramOrigin(tx, m, 'edited', clock.now());
    return { id: m.id, sessionId: m.sessionId, seq: m.seq, status: m.status };
  });
}

/**
 * The message, read again under its session's lock — the lock the queue pump holds while it leases a
 * message and writes its `deliver` — and the domain's decision on it; a refusal throws.
 */
async function lockedMessage(tx: Tx, change: MessageChange, input: ChangeMessageInput) {
  const first = await readMessageForChange(tx, input.messageId);
  if (!first) throw new AppError('NOT_FOUND', { message: 'message not found' });
  await lockSession(tx, first.sessionId);
  const m = await readMessageForChange(tx, input.messageId);
  if (!m) throw new AppError('NOT_FOUND', { message: 'message not found' });
  const d = decideMessageChange(change, {
    status: m.status,
    delivery: m.deliveryId === null ? 'none' : 'issued',
    ownedByCaller: input.sessionId === undefined || input.sessionId === m.sessionId,
  });
  if (!d.ok) {
    if (d.reason === 'not_yours') throw new AppError('NOT_FOUND', { message: 'message not found' });
    throw new AppError('CONFLICT', { message: `message ${change} refused: ${d.reason}`, userMessage: MESSAGE_CHANGE_REFUSAL_TEXT[d.reason] });
  }
  return m;
}

/**
 * The reply in the Telegram chat a message came from, when it was cancelled or edited on the
 * dashboard. Keyed by the message and the change (an edit by its new text's length and time too), so a
 * retried transaction writes it once.
 */
async function tellTelegramOrigin(
  tx: Tx,
  m: { id: string; sessionId: string; seq: number; source: string; sourceKey: string | null },
  change: 'cancelled' | 'edited',
  now: Date,
): Promise<void> {
  const origin = telegramOrigin(m.source, m.sourceKey);
  if (!origin) return;
  const session = await tx.session.findUnique({ where: { id: m.sessionId }, select: { nodeId: true } });
  if (!session) return;
  await enqueueOutbox(tx, {
    channel: 'telegram',
    dedupeKey: change === 'cancelled' ? `changed:${m.id}:cancelled` : `changed:${m.id}:edited:${now.getTime()}`,
    chatId: origin.chatId,
    now,
    payload: { kind: 'message_changed', sessionId: m.sessionId, nodeId: session.nodeId, messageId: m.id, seq: m.seq, change, replyTo: origin.messageId },
  });
}

async function wake(tx: Tx, sessionId: string): Promise<void> {
  await tx.$executeRaw`select pg_notify('bria_session_wake', ${sessionId}::text)`;
}
