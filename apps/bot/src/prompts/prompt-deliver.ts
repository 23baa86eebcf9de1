import { type Api, GrammyError } from 'grammy';
import type { PromptPhase } from '@bria/core/domain';
import type { Translator } from '@bria/core/i18n';
import { type ChatDto, type Db, getPromptView, getSessionView, sentMessageIds } from '@bria/core/services';
import { escapeHtml } from '../render/index.ts';
import { sessionName } from '../render/session-name.ts';
import { endPromptFlow, readPromptFlow } from './prompt-flow.ts';
import { drawPrompt } from './prompt-view.ts';

export interface PromptDeliverContext {
  api: Api;
  db: Db;
  onPart: (messageIds: number[]) => Promise<void>;
}

const harmlessEdit = (e: unknown) =>
  e instanceof GrammyError && /message is not modified|message to edit not found|message can't be edited/.test(e.description);

/** The key of the `open` row the engine wrote for this chat (engine notifyChats: `<key>:<chat id>`). */
export const openRowKey = (promptId: string, chatId: bigint) => `prompt:${promptId}:open:${chatId}`;

/**
 * A `prompt` outbox row. The payload holds only ids: the request is read now, so the message shows
 * what is true when it is sent. `open` is one new message (with the choices while the request
 * waits; a request answered before its message went out shows how it ended, without buttons).
 * Later phases edit that message in place to how the request ended (an edit is repeatable: a retry
 * changes nothing), and `waiting_at_computer` also sends a new message naming the session. A row
 * whose message was sent before a crash (`already`) is never sent again.
 */
export async function deliverPrompt(
  ctx: PromptDeliverContext,
  o: { chat: ChatDto | null; chatId: bigint; t: Translator; already: number[]; promptId: string; phase: PromptPhase },
): Promise<number[]> {
  const { t } = o;
  const chatId = Number(o.chatId);
  const view = await getPromptView({ db: ctx.db }, o.promptId);
  if (!view) return [];
  const session = await getSessionView(ctx.db, view.sessionId);
  const shown = drawPrompt({ view, session, t });
  const options = { parse_mode: 'HTML' as const, link_preview_options: { is_disabled: true } };
  if (o.phase === 'open') {
    if (o.already.length > 0) return o.already;
    const m = await ctx.api.sendMessage(chatId, shown.html, { ...options, ...(shown.keyboard ? { reply_markup: shown.keyboard } : {}) });
    return [m.message_id];
  }
  // The request left the user's hands: its kept answers go. A reason or answer being typed stays
  // awaited: that next text is still not a message for the session (the reply says it was not used).
  if (o.chat && readPromptFlow(o.chat.flow, view.id)?.draft.typing === null) await endPromptFlow(ctx.db, o.chat, view.id);
  const [openId] = await sentMessageIds(ctx.db, openRowKey(view.id, o.chatId));
  if (openId !== undefined && view.state !== 'pending') {
    try {
      // No reply_markup: the edit removes the buttons.
      await ctx.api.editMessageText(chatId, openId, shown.html, options);
    } catch (e) {
      // Unchanged (a retry), or deleted by the user / too old: nothing left to redraw.
      if (!harmlessEdit(e)) throw e;
    }
  }
  // The notice only while it is true: an answer at the computer or the turn's end may have come first.
  // Left to the computer on the user's own word: the redrawn message says so, no "nobody answered" notice.
  if (o.phase !== 'waiting_at_computer' || view.state !== 'waiting_at_computer' || view.answer?.decision === 'at_computer')
    return openId === undefined ? [] : [openId];
  if (o.already.length > 0) return o.already;
  const name = session ? sessionName(session, t('archive.untitled')) : '?';
  const m = await ctx.api.sendMessage(chatId, escapeHtml(t('prompt.waitingNotice', { name })), options);
  return [m.message_id];
}
