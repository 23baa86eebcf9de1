import type { NextFunction } from 'grammy';
import type { BotContext } from '../context.ts';
import type { CallbackData } from '../card/callback-data.ts';
import { queueCard } from '../outbox/queue.ts';

/**
 * A button that may not act (drawn by an older card or flow, unparseable or tampered data, or about
 * something that no longer exists): the user is told it is out of date, so their spinner stops,
 * and the current card is refreshed so the buttons they see are current ones.
 */
export async function refuseButton(ctx: BotContext): Promise<void> {
  await ctx.answerCallbackQuery({ text: ctx.bria.t('button.stale') });
  const { chat } = ctx.bria;
  if (chat.cardSessionId) await queueCard(ctx, { sessionId: chat.cardSessionId });
}

/**
 * Buttons carry the card generation they were drawn under. An older one never acts: the user is
 * told it is out of date and the current card is refreshed. Returns true when the button is stale.
 */
export async function staleButton(ctx: BotContext, data: CallbackData, generation = ctx.bria.chat.cardGeneration): Promise<boolean> {
  if (data.gen === generation) return false;
  await refuseButton(ctx);
  return true;
}

/**
 * The safety net under every feature: a callback query that no handler answered (no handler
 * matched, or one returned early) is answered as out of date, so no button press leaves the
 * user's spinner turning. Errors are answered by the bot's error boundary instead.
 */
export async function answerEveryCallback(ctx: BotContext, next: NextFunction): Promise<void> {
  if (!ctx.callbackQuery) return next();
  let answered = false;
  const answer = ctx.answerCallbackQuery.bind(ctx);
  ctx.answerCallbackQuery = (...args: Parameters<typeof answer>) => {
    answered = true;
    return answer(...args);
  };
  await next();
  if (!answered) await refuseButton(ctx);
}
