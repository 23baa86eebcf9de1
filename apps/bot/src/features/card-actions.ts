import { Composer, InlineKeyboard } from 'grammy';
import type { BotContext } from '../context.ts';
import { cb } from '../card/callback-data.ts';
import { showCard } from '../card/card-service.ts';
import { escapeHtml } from '../render/index.ts';
import { releaseHeldFinal } from '../outbox/outbox-store.ts';
import { setActiveSession } from '../store/chats.ts';
import { getSessionView, listOpenSessions } from '../store/sessions-read.ts';
import { selectedNode } from './home.ts';
import { staleButton } from './stale.ts';

/** The card's lifecycle button (Stop / Close with confirmation), switching sessions, Open from a notice. */
export function cardActions(): Composer<BotContext> {
  const c = new Composer<BotContext>();

  const sessionsList = async (ctx: BotContext) => {
    const { t, deps } = ctx.bria;
    const node = await selectedNode(ctx);
    if (!node) return void (await ctx.reply(t('nodes.none')));
    const open = await listOpenSessions(deps.db, node.id);
    if (open.length === 0) return void (await ctx.reply(t('sessions.none', { node: node.name })));
    const kb = new InlineKeyboard();
    for (const s of open) {
      const label = t('sessions.line', { executor: t(`executor.${s.executor}`), state: t(`state.${s.state}`), folder: s.folder.split('/').slice(-2).join('/') });
      kb.text(label.slice(0, 60), cb.encode({ a: 'open', gen: ctx.bria.chat.cardGeneration, sessionId: s.id })).row();
    }
    await ctx.reply(escapeHtml(t('sessions.title', { node: node.name })), { parse_mode: 'HTML', reply_markup: kb });
  };
  c.command('sessions', sessionsList);

  c.callbackQuery(/^(stop|close|closeYes|closeNo|sessions|refresh|open):/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    if (!data) return void (await ctx.answerCallbackQuery({ text: ctx.bria.t('button.stale') }));
    const { deps, chatId } = ctx.bria;
    // Open is navigation (from a notice or a list), allowed while the session is open; the rest act on the current card only.
    if (data.a !== 'open' && (await staleButton(ctx, data))) return;
    // A current generation does not make a button about another session current: such data was not drawn by this card.
    if (data.a !== 'open' && data.sessionId && data.sessionId !== ctx.bria.chat.cardSessionId) {
      return void (await ctx.answerCallbackQuery({ text: ctx.bria.t('button.stale') }));
    }
    const sessionId = data.sessionId ?? ctx.bria.chat.cardSessionId;
    switch (data.a) {
      case 'sessions':
        await ctx.answerCallbackQuery();
        return sessionsList(ctx);
      case 'open': {
        const s = sessionId ? await getSessionView(deps.db, sessionId) : null;
        if (!s || s.state === 'Archived' || s.state === 'ResumeFailed') return void (await ctx.answerCallbackQuery({ text: ctx.bria.t('button.stale') }));
        // Switching only changes what is shown: the previous session keeps working in the background.
        await setActiveSession(deps.db, chatId, s.nodeId, s.id);
        await ctx.answerCallbackQuery();
        await showCard({ api: ctx.api, db: deps.db, chatId, sessionId: s.id, fresh: true });
        // Its final, held while it finished in the background, follows the card (once, however often it is opened).
        if (await releaseHeldFinal(deps.db, { chatId, sessionId: s.id })) deps.wakeOutbox?.();
        return;
      }
      case 'close':
      case 'closeNo':
      case 'refresh':
        await ctx.answerCallbackQuery();
        if (sessionId) await showCard({ api: ctx.api, db: deps.db, chatId, sessionId, confirmClose: data.a === 'close' });
        return;
      case 'stop':
      case 'closeYes': {
        if (!sessionId) return void (await ctx.answerCallbackQuery());
        await ctx.answerCallbackQuery();
        if (data.a === 'stop') await deps.actions.stopSession({ sessionId, cardVersion: data.version });
        else await deps.actions.closeSession({ sessionId, cardVersion: data.version });
        await showCard({ api: ctx.api, db: deps.db, chatId, sessionId });
        return;
      }
      default:
        return;
    }
  });
  return c;
}
