import { type Api, GrammyError } from 'grammy';
import { pickLanguage, translator, type Translator } from '@bria/core/i18n';
import {
  bumpCardGeneration,
  type ChatDto,
  type Db,
  enqueueBotRow,
  getChat,
  getNodeView,
  getSessionView,
  noteCardShown,
  setCardMessage,
} from '@bria/core/services';
import { escapeHtml } from '../render/index.ts';
import { sessionName } from '../render/session-name.ts';
import { renderCard } from './card-view.ts';

export function chatTranslator(chat: Pick<ChatDto, 'language'> | null): Translator {
  return translator(pickLanguage(chat?.language));
}

const notModified = (e: unknown) => e instanceof GrammyError && /message is not modified/.test(e.description);
const editGone = (e: unknown) => e instanceof GrammyError && /message to edit not found|message can't be edited/.test(e.description);

/**
 * Shows a session's card. `fresh` posts a new card message (older cards' buttons become stale);
 * otherwise the current card is edited in place, or posted when the chat has none for this session.
 * `into` turns an existing message of the bot (the "Resuming …" status) into the new card; an edit is
 * repeatable, so a retry after a crash never makes a second card. A message that is gone is replaced
 * by a new one.
 */
export async function showCard(o: CardOptions): Promise<number | undefined> {
  const session = await getSessionView(o.db, o.sessionId);
  const id = await drawCard(o, session);
  // Every edit counts for the progress throttle (ProgressTicker), and the card now shows this activity.
  if (id !== undefined) await noteCardShown(o.db, o.chatId, new Date(), session?.activityAt ?? null);
  return id;
}

type CardOptions = { api: Api; db: Db; chatId: bigint; sessionId: string; fresh?: boolean; into?: number; confirmClose?: boolean; now?: Date };

async function drawCard(o: CardOptions, session: Awaited<ReturnType<typeof getSessionView>>): Promise<number | undefined> {
  const chat = await getChat(o.db, o.chatId);
  if (!chat || !session) return undefined;
  const node = await getNodeView(o.db, session.nodeId);
  const t = chatTranslator(chat);
  const now = o.now ?? new Date();
  const chatId = Number(o.chatId);
  const sameCard = chat.cardSessionId === o.sessionId && chat.cardMessageId !== null;
  if (!o.fresh && o.into === undefined && sameCard) {
    const view = renderCard({ t, session, nodeName: node?.name ?? '?', generation: chat.cardGeneration, now, confirmClose: o.confirmClose });
    try {
      await o.api.editMessageText(chatId, chat.cardMessageId as number, view.html, { parse_mode: 'HTML', reply_markup: view.keyboard });
      return chat.cardMessageId as number;
    } catch (e) {
      if (notModified(e)) return chat.cardMessageId as number;
      if (!editGone(e)) throw e;
    }
  }
  if (chat.cardMessageId !== null && chat.cardMessageId !== o.into) await supersede(o.db, chat, t);
  const generation = await bumpCardGeneration(o.db, o.chatId, o.sessionId);
  const view = renderCard({ t, session, nodeName: node?.name ?? '?', generation, now, confirmClose: o.confirmClose });
  if (o.into !== undefined) {
    try {
      await o.api.editMessageText(chatId, o.into, view.html, { parse_mode: 'HTML', reply_markup: view.keyboard });
      await setCardMessage(o.db, o.chatId, generation, o.into);
      return o.into;
    } catch (e) {
      if (notModified(e)) {
        await setCardMessage(o.db, o.chatId, generation, o.into);
        return o.into;
      }
      if (!editGone(e)) throw e;
    }
  }
  const sent = await o.api.sendMessage(chatId, view.html, { parse_mode: 'HTML', reply_markup: view.keyboard });
  await setCardMessage(o.db, o.chatId, generation, sent.message_id);
  return sent.message_id;
}

/**
 * The chat's card is about to be replaced by a new message: the old one is edited once into a short
 * "no longer current" line without buttons, so no older card keeps showing a state or a Stop button
 * that is no longer true (e.g. "working" after its session was archived). It is an outbox `edit`
 * row, written before the new card's generation is taken: it goes out after the new card, with the
 * outbox's 429/5xx handling, and its key (the old message id, never reused in a chat) makes it happen
 * once however often the new card's delivery is retried. An edit of a message too old to edit, or
 * deleted, is dropped (deliver.ts `edit`).
 */
async function supersede(db: Db, chat: ChatDto, t: Translator): Promise<void> {
  const old = chat.cardSessionId ? await getSessionView(db, chat.cardSessionId) : null;
  const name = old ? sessionName(old, t('archive.untitled')) : t('archive.untitled');
  await enqueueBotRow(db, {
    dedupeKey: `supersede:${chat.chatId}:${chat.cardMessageId}`,
    kind: 'edit',
    chatId: chat.chatId,
    sessionId: null,
    payload: { kind: 'edit', messageId: chat.cardMessageId, text: escapeHtml(t('card.superseded', { name })), html: true, noPreview: true },
  });
}
