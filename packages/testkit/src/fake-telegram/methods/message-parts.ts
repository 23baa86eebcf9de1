import type { InlineKeyboardButton, InlineKeyboardMarkup, Message, MessageEntity, ReplyParameters, User } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';
import type { FakeContext } from '../context.ts';
import type { Params } from '../http/request-body.ts';
import { bool, int, json } from '../params.ts';

const BUTTON_KINDS = [
  'url',
  'callback_data',
  'web_app',
  'login_url',
  'switch_inline_query',
  'switch_inline_query_current_chat',
  'switch_inline_query_chosen_chat',
  'copy_text',
  'callback_game',
  'pay',
] as const;

function validateButton(button: unknown): void {
  if (typeof button !== 'object' || button === null) {
    throw ApiError.badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
  }
  const b = button as Record<string, unknown>;
  if (typeof b.text !== 'string') throw ApiError.badRequest(`can't parse inline keyboard button: Field "text" must be of type String`);
  const kinds = BUTTON_KINDS.filter((k) => b[k] !== undefined);
  if (kinds.length === 0) throw ApiError.badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
  if (b.callback_data !== undefined) {
    const data = b.callback_data;
    if (typeof data !== 'string' || data === '' || Buffer.byteLength(data, 'utf8') > 64) throw ApiError.badRequest('BUTTON_DATA_INVALID');
  }
  if (b.url !== undefined && (typeof b.url !== 'string' || !/^(https?:\/\/[^\s]+\.[^\s]+|tg:\/\/\S+)/i.test(b.url))) {
    throw ApiError.badRequest('BUTTON_URL_INVALID');
  }
}

/**
 * Reads reply_markup. Only an inline keyboard becomes part of the Message, as on Telegram;
 * reply keyboards and force_reply are accepted and not shown on the message.
 */
export function readInlineMarkup(p: Params): InlineKeyboardMarkup | undefined {
  const markup = json<Record<string, unknown>>(p, 'reply_markup', "can't parse reply keyboard markup JSON object");
  if (markup === undefined) return undefined;
  if (typeof markup !== 'object' || markup === null) throw ApiError.badRequest("can't parse reply keyboard markup JSON object");
  if (markup.inline_keyboard === undefined) {
    if (markup.keyboard !== undefined || markup.remove_keyboard !== undefined || markup.force_reply !== undefined) return undefined;
    throw ApiError.badRequest("can't parse reply keyboard markup JSON object");
  }
  const rows = markup.inline_keyboard;
  if (!Array.isArray(rows)) throw ApiError.badRequest('field "inline_keyboard" must be of type Array');
  for (const row of rows) {
    if (!Array.isArray(row)) throw ApiError.badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Array");
    row.forEach(validateButton);
  }
  const kept = (rows as InlineKeyboardButton[][]).filter((row) => row.length > 0);
  return kept.length > 0 ? { inline_keyboard: structuredClone(kept) } : undefined;
}

export interface ReplyFields {
  reply_to_message?: Message;
  quote?: { text: string; position: number; is_manual: true };
}

/** The message a send call replies to, copied without its own reply like the server does. */
export function readReplyTarget(p: Params, ctx: FakeContext, chatId: number): ReplyFields {
  const legacyId = int(p, 'reply_to_message_id');
  const rp =
    json<ReplyParameters>(p, 'reply_parameters', "can't parse ReplyParameters JSON object") ??
    (legacyId !== undefined ? { message_id: legacyId, allow_sending_without_reply: bool(p, 'allow_sending_without_reply') } : undefined);
  if (!rp) return {};
  const targetChat = rp.chat_id === undefined ? chatId : Number(rp.chat_id);
  const target = ctx.chats.message(targetChat, Number(rp.message_id));
  if (!target) {
    if (rp.allow_sending_without_reply) return {};
    throw ApiError.badRequest('message to be replied not found');
  }
  const copy = structuredClone(target) as Message & { reply_to_message?: Message };
  delete copy.reply_to_message;
  if (rp.quote !== undefined) {
    const source = copy.text ?? copy.caption ?? '';
    const position = source.indexOf(rp.quote, rp.quote_position ?? 0);
    if (position === -1) throw ApiError.badRequest('quote not found');
    return { reply_to_message: copy, quote: { text: rp.quote, position, is_manual: true } };
  }
  return { reply_to_message: copy };
}

export function botUser(ctx: FakeContext): User {
  return { id: ctx.me.id, is_bot: true, first_name: ctx.me.first_name, username: ctx.me.username };
}

/** Drops undefined and empty-entity fields so stored messages look like the server's JSON. */
export function compact<T extends object>(message: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(message)) {
    if (v === undefined) continue;
    if ((k === 'entities' || k === 'caption_entities') && Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out as T;
}

export const sameEntities = (a: MessageEntity[] | undefined, b: MessageEntity[] | undefined): boolean => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
