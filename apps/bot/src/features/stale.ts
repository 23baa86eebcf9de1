import type { BotContext } from '../context.ts';
import type { CallbackData } from '../card/callback-data.ts';
import { showCard } from '../card/card-service.ts';

/**
 * Buttons carry the card generation they were drawn under. An older one never acts: the user is
 * told it is out of date and the current card is refreshed. Returns true when the button is stale.
 */
export async function staleButton(ctx: BotContext, data: CallbackData, generation = ctx.bria.chat.cardGeneration): Promise<boolean> {
  if (data.gen === generation) return false;
  await ctx.answerCallbackQuery({ text: ctx.bria.t('button.stale') });
  const { chat } = ctx.bria;
  if (chat.cardSessionId) await showCard({ api: ctx.api, db: ctx.bria.deps.db, chatId: ctx.bria.chatId, sessionId: chat.cardSessionId });
  return true;
}
