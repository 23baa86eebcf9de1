import type { InlineKeyboardMarkup, LinkPreviewOptions, Message, MessageEntity } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';
import { type FakeContext, type Handler, unixTime } from '../context.ts';
import type { Params } from '../http/request-body.ts';
import { bool, int, json, requireChatId, str } from '../params.ts';
import { formatText } from '../text/formatted-text.ts';
import { botUser, compact, readInlineMarkup, readReplyTarget, sameEntities } from './message-parts.ts';

const NOT_MODIFIED =
  'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';

const entitiesParam = (p: Params, key: string) => json<MessageEntity[]>(p, key, `can't parse entities JSON object`);

/** Finds the bot's own message addressed by an edit call. */
function editable(p: Params, ctx: FakeContext): { chatId: number; message: Message } {
  if (str(p, 'inline_message_id') !== undefined) throw ApiError.badRequest('MESSAGE_ID_INVALID');
  const chatId = requireChatId(p);
  ctx.chats.forBot(chatId);
  const messageId = int(p, 'message_id');
  const message = messageId === undefined ? undefined : ctx.chats.message(chatId, messageId);
  if (!message) throw ApiError.badRequest('message to edit not found');
  if (message.from?.id !== ctx.me.id) throw ApiError.badRequest("message can't be edited");
  return { chatId, message };
}

const sameMarkup = (a: InlineKeyboardMarkup | undefined, b: InlineKeyboardMarkup | undefined): boolean =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function saveEdit(ctx: FakeContext, chatId: number, edited: Message): Message {
  const message = compact({ ...edited, edit_date: unixTime(ctx) });
  ctx.chats.replace(chatId, message);
  return structuredClone(message);
}

export const messageMethods: Record<string, Handler> = {
  sendMessage: ({ params: p }, ctx) => {
    const chatId = requireChatId(p);
    ctx.chats.forBot(chatId);
    const formatted = formatText({ text: str(p, 'text'), parseMode: str(p, 'parse_mode'), entities: entitiesParam(p, 'entities'), kind: 'text' });
    const markup = readInlineMarkup(p);
    const reply = readReplyTarget(p, ctx, chatId);
    const preview = json<LinkPreviewOptions>(p, 'link_preview_options', "can't parse link preview options JSON object");
    const message = ctx.chats.add(
      chatId,
      (message_id, chat) =>
        compact({
          message_id,
          from: botUser(ctx),
          chat,
          date: unixTime(ctx),
          ...reply,
          text: formatted?.text,
          entities: formatted?.entities,
          link_preview_options: preview,
          has_protected_content: bool(p, 'protect_content') ? (true as const) : undefined,
          reply_markup: markup,
        }) as Message,
    );
    return structuredClone(message);
  },

  editMessageText: ({ params: p }, ctx) => {
    const { chatId, message } = editable(p, ctx);
    if (message.text === undefined) throw ApiError.badRequest('there is no text in the message to edit');
    const formatted = formatText({ text: str(p, 'text'), parseMode: str(p, 'parse_mode'), entities: entitiesParam(p, 'entities'), kind: 'text' });
    // Leaving reply_markup out of an edit removes the keyboard, as on Telegram.
    const markup = readInlineMarkup(p);
    const preview = json<LinkPreviewOptions>(p, 'link_preview_options', "can't parse link preview options JSON object");
    if (message.text === formatted?.text && sameEntities(message.entities, formatted.entities) && sameMarkup(message.reply_markup, markup)) {
      throw ApiError.badRequest(NOT_MODIFIED);
    }
    const text = { text: formatted?.text, entities: formatted?.entities, link_preview_options: preview };
    return saveEdit(ctx, chatId, { ...message, ...text, reply_markup: markup } as Message);
  },

  editMessageCaption: ({ params: p }, ctx) => {
    const { chatId, message } = editable(p, ctx);
    if (message.text !== undefined) throw ApiError.badRequest('there is no caption in the message to edit');
    const caption = formatText({ text: str(p, 'caption'), parseMode: str(p, 'parse_mode'), entities: entitiesParam(p, 'caption_entities'), kind: 'caption' });
    const markup = readInlineMarkup(p);
    if (message.caption === caption?.text && sameEntities(message.caption_entities, caption?.entities) && sameMarkup(message.reply_markup, markup)) {
      throw ApiError.badRequest(NOT_MODIFIED);
    }
    return saveEdit(ctx, chatId, { ...message, caption: caption?.text, caption_entities: caption?.entities, reply_markup: markup } as Message);
  },

  editMessageReplyMarkup: ({ params: p }, ctx) => {
    const { chatId, message } = editable(p, ctx);
    const markup = readInlineMarkup(p);
    if (sameMarkup(message.reply_markup, markup)) throw ApiError.badRequest(NOT_MODIFIED);
    return saveEdit(ctx, chatId, { ...message, reply_markup: markup } as Message);
  },

  deleteMessage: ({ params: p }, ctx) => {
    const chatId = requireChatId(p);
    ctx.chats.forBot(chatId);
    const messageId = int(p, 'message_id');
    if (messageId === undefined || !ctx.chats.delete(chatId, messageId)) throw ApiError.badRequest('message to delete not found');
    return true;
  },

  deleteMessages: ({ params: p }, ctx) => {
    const chatId = requireChatId(p);
    ctx.chats.forBot(chatId);
    const ids = json<number[]>(p, 'message_ids', "can't parse message identifiers JSON array");
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > 100) throw ApiError.badRequest('message identifiers are not specified');
    for (const id of ids) ctx.chats.delete(chatId, Number(id));
    return true;
  },
};
