import { Composer } from 'grammy';
import { isAppError } from '@bria/core/domain';
import { getSessionView, releaseHeldFinal, setActiveSessionId, updateChat } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import { cb } from '../card/callback-data.ts';
import { queueCard } from '../outbox/queue.ts';
import { sessionsList } from './home.ts';
import { refuseButton, staleButton } from './stale.ts';

/** The card's lifecycle button (Stop / Close with confirmation), switching sessions, Open from a notice. */
export function cardActions(): Composer<BotContext> {
  const c = new Composer<BotContext>();

  c.command('sessions', sessionsList);

  c.callbackQuery(/^(stop|close|closeYes|closeNo|sessions|refresh|open):/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    if (!data) return void (await refuseButton(ctx));
    const { deps, chatId } = ctx.bria;
    // Open is navigation (from a notice or a list), allowed while the session is open; the rest act on the current card only.
    if (data.a !== 'open' && (await staleButton(ctx, data))) return;
    // A current generation does not make a button about another session current: such data was not drawn by this card.
    if (data.a !== 'open' && data.sessionId && data.sessionId !== ctx.bria.chat.cardSessionId) {
      return void (await refuseButton(ctx));
    }
    const sessionId = data.sessionId ?? ctx.bria.chat.cardSessionId;
    switch (data.a) {
      case 'sessions':
        await ctx.answerCallbackQuery();
        return sessionsList(ctx);
      case 'open': {
        const s = sessionId ? await getSessionView(deps.db, sessionId) : null;
        if (!s || s.state === 'Archived' || s.state === 'ResumeFailed') return void (await refuseButton(ctx));
        // Switching only changes what is shown: the previous session keeps working in the background.
        // A notice can be about another computer's session: its computer becomes the selected one, so
        // what the user types next goes to the session whose card they see.
        await setActiveSessionId(deps.db, chatId, s.nodeId, s.id);
        if (ctx.bria.chat.selectedNodeId !== s.nodeId) {
          await updateChat(deps.db, chatId, { selectedNodeId: s.nodeId });
          ctx.bria.chat.selectedNodeId = s.nodeId;
        }
        await ctx.answerCallbackQuery();
        await queueCard(ctx, { sessionId: s.id, fresh: true });
        // Its final, held while it finished in the background, follows the card (once, however often it is opened).
        if (await releaseHeldFinal(deps.db, { chatId, sessionId: s.id })) deps.wakeOutbox?.();
        return;
      }
      case 'close':
      case 'closeNo':
      case 'refresh':
        await ctx.answerCallbackQuery();
        if (sessionId) await queueCard(ctx, { sessionId, confirmClose: data.a === 'close' });
        return;
      case 'stop':
      case 'closeYes': {
        if (!sessionId) return refuseButton(ctx);
        try {
          if (data.a === 'stop') await deps.actions.stopSession({ sessionId, cardVersion: data.version });
          else await deps.actions.closeSession({ sessionId, cardVersion: data.version });
        } catch (error) {
          // The session moved on since the card was drawn (work started, it finished, it was closed):
          // the button no longer applies; the refreshed card shows what does.
          if (isAppError(error) && (error.code === 'ILLEGAL_TRANSITION' || error.code === 'STALE_BUTTON')) return refuseButton(ctx);
          throw error;
        }
        await ctx.answerCallbackQuery();
        await queueCard(ctx, { sessionId });
        return;
      }
      default:
        return;
    }
  });
  return c;
}
