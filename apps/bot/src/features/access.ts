import { Composer } from 'grammy';
import { pickLanguage, translator } from '@bria/core/i18n';
import { ensureChat, readSettingsView } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import type { BotDeps } from '../deps.ts';
import { StrangerRefusals } from './stranger-refusals.ts';

/**
 * The door: only updates from a private chat with an allow-listed user get through — messages,
 * edits, button presses and member changes alike; anything from a group, a channel or an inline
 * message stops here (the bot never posts there, so nothing there is meant for it). A button press
 * that stops here is answered with nothing (the spinner ends, nothing is said). A stranger who
 * writes gets one polite refusal per day (no buttons, nothing about Bria's state); the log keeps
 * only the user id and the update kind, never what they wrote.
 */
export function access(deps: BotDeps): Composer<BotContext> {
  const c = new Composer<BotContext>();
  const refusals = new StrangerRefusals();
  const kind = (ctx: BotContext) => (ctx.message ? 'message' : ctx.callbackQuery ? 'callback' : 'other');
  const answerEmpty = async (ctx: BotContext) => {
    if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
  };
  c.use(async (ctx, next) => {
    const from = ctx.from;
    if (!from || ctx.chat?.type !== 'private' || ctx.chat.id !== from.id) {
      deps.log.debug({ chatType: ctx.chat?.type ?? 'none', update: kind(ctx) }, 'ignored an update that is not from a private chat');
      return answerEmpty(ctx);
    }
    const allowed = deps.allowedUsers.has(from.id) || (await readSettingsView(deps.db)).allowedTelegramUsers.some((u) => u === BigInt(from.id));
    if (!allowed) {
      deps.log.warn({ telegramUserId: from.id, update: kind(ctx) }, 'refused a user who is not allow-listed');
      if (!ctx.message) return answerEmpty(ctx);
      if (!refusals.take(from.id, deps.now?.() ?? new Date())) return;
      // Sent directly, not through the outbox: a stranger gets nothing stored about them (no row
      // holding their chat id), and a flood of strangers cannot grow Bria's tables. The refusal is
      // best-effort: lost on a 429/5xx, which costs nothing Bria promised.
      const t = translator(pickLanguage(from.language_code));
      await ctx.reply(t('refusal')).catch((err: unknown) => deps.log.warn({ telegramUserId: from.id, err: String(err).slice(0, 120) }, 'refusal not sent'));
      return;
    }
    const chatId = BigInt(ctx.chat.id);
    const chat = await ensureChat(deps.db, { chatId, userId: BigInt(from.id), language: pickLanguage(from.language_code) });
    const lang = pickLanguage(chat.language ?? from.language_code);
    ctx.bria = { deps, chat, chatId, lang, t: translator(lang) };
    await next();
  });
  return c;
}
