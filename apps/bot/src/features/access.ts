import { Composer } from 'grammy';
import { pickLanguage, translator } from '@bria/core/i18n';
import type { BotContext } from '../context.ts';
import type { BotDeps } from '../deps.ts';
import { readSettingsView } from '../store/sessions-read.ts';
import { ensureChat } from '../store/chats.ts';

/**
 * The door: only private chats with allow-listed users get through. Anyone else gets one polite
 * refusal per message (no buttons, nothing about Bria's state); the log keeps only the user id and
 * the update kind, never what they wrote.
 */
export function access(deps: BotDeps): Composer<BotContext> {
  const c = new Composer<BotContext>();
  c.use(async (ctx, next) => {
    const from = ctx.from;
    if (!from || ctx.chat?.type !== 'private' && !ctx.callbackQuery) return;
    const allowed = deps.allowedUsers.has(from.id) || (await readSettingsView(deps.db)).allowedTelegramUsers.some((u) => u === BigInt(from.id));
    if (!allowed) {
      deps.log.warn({ telegramUserId: from.id, update: ctx.message ? 'message' : ctx.callbackQuery ? 'callback' : 'other' }, 'refused a user who is not allow-listed');
      const t = translator(pickLanguage(from.language_code));
      if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: t('refusal') });
      // Sent directly, not through the outbox: a stranger gets nothing stored about them (no row
      // holding their chat id), and a flood of strangers cannot grow Bria's tables. The refusal is
      // best-effort: lost on a 429/5xx, which costs nothing Bria promised.
      else if (ctx.message) await ctx.reply(t('refusal')).catch((err: unknown) => deps.log.warn({ telegramUserId: from.id, err: String(err).slice(0, 120) }, 'refusal not sent'));
      return;
    }
    const chatId = BigInt(ctx.chat?.id ?? from.id);
    const chat = await ensureChat(deps.db, { chatId, userId: BigInt(from.id), language: pickLanguage(from.language_code) });
    const lang = pickLanguage(chat.language ?? from.language_code);
    ctx.bria = { deps, chat, chatId, lang, t: translator(lang) };
    await next();
  });
  return c;
}
