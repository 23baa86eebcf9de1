import { Composer, InlineKeyboard } from 'grammy';
import { type AppError, isAppError, MESSAGE_CHANGE_REFUSAL_TEXT, type MessageChangeRefusal } from '@bria/core/domain';
import type { MessageKey, Translator } from '@bria/core/i18n';
import { getSessionView, messageBySourceKey, queuePosition } from '@bria/core/services';
import { cb } from '../card/callback-data.ts';
import type { BotContext } from '../context.ts';
import { edit, reply } from '../outbox/queue.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The queued message a Telegram message became: the key `acceptMessage` stored it under. */
export const telegramSourceKey = (chatId: bigint, messageId: number) => `tg:${chatId}:${messageId}`;

const REFUSAL_BY_TEXT = new Map<string, MessageChangeRefusal>(
  Object.entries(MESSAGE_CHANGE_REFUSAL_TEXT).map(([reason, text]) => [text, reason as MessageChangeRefusal]),
);

/** Why core refused a cancel or an edit (`domain/message-change.ts`), or undefined for any other error. */
function refusalOf(error: AppError): MessageChangeRefusal | undefined {
  if (error.code === 'NOT_FOUND') return 'not_yours';
  if (error.code === 'CONFLICT' && error.userMessage) return REFUSAL_BY_TEXT.get(error.userMessage);
  return undefined;
}

const refusalText = (t: Translator, reason: MessageChangeRefusal, seq: number | string) => t(`queue.refused.${reason}` as MessageKey, { seq });

/**
 * After a message is stored: when it does not go to the CLI at once (something is ahead of it, or
 * the session is not ready for it), a reply says it waits, for what, and carries Cancel. A message
 * that goes at once gets only the 👀 reaction, as before. The reply goes through the outbox keyed
 * by the update, so a redelivered update gets no second one.
 */
export async function replyStoredInQueue(ctx: BotContext, o: { sessionId: string; messageId: string; seq: number }): Promise<void> {
  const { t, deps } = ctx.bria;
  const [{ ahead, openPrompt }, session] = await Promise.all([
    queuePosition(deps.db, { sessionId: o.sessionId, seq: o.seq }),
    getSessionView(deps.db, o.sessionId),
  ]);
  if (!session) return;
  // Held by an open request of the CLI: say which, since answering it is what lets the message go.
  const why = openPrompt
    ? openPrompt.kind === 'tool'
      ? t('queue.whyPrompt', { tool: openPrompt.toolName })
      : t('queue.whyQuestion')
    : ahead > 0
      ? t('queue.whyAhead', { count: ahead })
      : session.state === 'Running'
        ? t('queue.whyRunning')
        : session.state !== 'Ready'
          ? t('queue.whyNotReady')
          : null;
  if (why === null) return;
  const keyboard = new InlineKeyboard().text(t('button.cancelQueued', { seq: o.seq }), cb.encode({ a: 'qcancel', gen: 0, version: o.seq, arg: o.messageId }));
  await reply(ctx, t('queue.stored', { seq: o.seq, why }), { keyboard });
}

/**
 * Control of a queued message from Telegram: editing the original message edits the queued one
 * (core `editMessage`, exactly-once: refused once it was handed to the CLI, and the user is told
 * the edit was not applied), and Cancel under the "stored in the queue" reply cancels it (core
 * `cancelMessage`). Both are answered in words; the reply loses its button once it no longer applies.
 */
export function queueControl(): Composer<BotContext> {
  const c = new Composer<BotContext>();

  c.on(['edited_message:text', 'edited_message:caption'], async (ctx) => {
    const { t, deps, chatId } = ctx.bria;
    const msg = ctx.editedMessage;
    const stored = await messageBySourceKey(deps.db, telegramSourceKey(chatId, msg.message_id));
    // An edit of a message Bria never queued (a command, a refused text) changes nothing.
    if (!stored) return;
    // A `/now <text>` message was stored as its text: the edit keeps the command out of it too.
    const text = (msg.text ?? msg.caption ?? '').replace(/^\/now(@\w+)?(\s+|$)/, '');
    try {
      await deps.actions.editMessage({ messageId: stored.id, text });
    } catch (error) {
      if (!isAppError(error)) throw error;
      const reason = refusalOf(error);
      if (reason) return void (await reply(ctx, t('queue.editNotApplied', { refusal: refusalText(t, reason, stored.seq) })));
      if (error.code === 'INVALID_INPUT') return void (await reply(ctx, t('queue.editRefusedInput', { seq: stored.seq })));
      throw error;
    }
    await reply(ctx, t('queue.edited', { seq: stored.seq }));
  });

  c.callbackQuery(/^qcancel:/, async (ctx) => {
    const { t, deps } = ctx.bria;
    const data = cb.decode(ctx.callbackQuery.data);
    // Drawn with the message's seq (in the version's place) and id; anything else is not this button.
    if (!data?.arg || !UUID.test(data.arg)) return;
    const where = ctx.callbackQuery.message?.message_id;
    let seq: number;
    try {
      seq = (await deps.actions.cancelMessage({ messageId: data.arg })).seq;
    } catch (error) {
      if (!isAppError(error)) throw error;
      const reason = refusalOf(error);
      if (!reason) throw error;
      const text = refusalText(t, reason, data.version ?? '?');
      await ctx.answerCallbackQuery({ text });
      if (where !== undefined) await edit(ctx, where, text);
      return;
    }
    await ctx.answerCallbackQuery({ text: t('queue.cancelledShort', { seq }) });
    if (where !== undefined) await edit(ctx, where, t('queue.cancelled', { seq }));
  });
  return c;
}
