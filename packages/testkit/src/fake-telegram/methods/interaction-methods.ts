import type { ReactionType } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';
import type { Handler } from '../context.ts';
import { bool, int, json, requireChatId, str } from '../params.ts';

const ACTIONS = new Set([
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
]);

// The emoji a bot may react with (ReactionTypeEmoji in the Bot API reference).
export const REACTION_EMOJI = new Set(
  (
    '👍 👎 ❤ 🔥 🥰 👏 😁 🤔 🤯 😱 🤬 😢 🎉 🤩 🤮 💩 🙏 👌 🕊 🤡 🥱 🥴 😍 🐳 ❤‍🔥 🌚 🌭 💯 🤣 ⚡ 🍌 🏆 💔 🤨 😐 🍓 🍾 💋 🖕 ' +
    '😈 😴 😭 🤓 👻 👨‍💻 👀 🎃 🙈 😇 😨 🤝 ✍ 🤗 🫡 🎅 🎄 ☃ 💅 🤪 🗿 🆒 💘 🙉 🦄 😘 💊 🙊 😎 👾 🤷‍♂ 🤷 🤷‍♀ 😡'
  ).split(' '),
);

export const interactionMethods: Record<string, Handler> = {
  answerCallbackQuery: ({ params: p }, ctx) => {
    const answer = { callbackQueryId: str(p, 'callback_query_id') ?? '', showAlert: bool(p, 'show_alert'), at: ctx.clock() };
    const text = str(p, 'text');
    const url = str(p, 'url');
    const cacheTime = int(p, 'cache_time');
    ctx.callbacks.answer({
      ...answer,
      ...(text !== undefined ? { text } : {}),
      ...(url !== undefined ? { url } : {}),
      ...(cacheTime !== undefined ? { cacheTime } : {}),
    });
    return true;
  },

  setMessageReaction: ({ params: p }, ctx) => {
    const chatId = requireChatId(p);
    ctx.chats.forBot(chatId);
    const messageId = int(p, 'message_id');
    if (messageId === undefined || !ctx.chats.message(chatId, messageId)) throw ApiError.badRequest('message to react not found');
    const reaction = json<ReactionType[]>(p, 'reaction', "can't parse reaction types JSON object") ?? [];
    if (!Array.isArray(reaction)) throw ApiError.badRequest("can't parse reaction types JSON object");
    if (reaction.length > 1) throw ApiError.badRequest('REACTIONS_TOO_MANY');
    for (const r of reaction) {
      if (r?.type !== 'emoji' || !REACTION_EMOJI.has(r.emoji)) throw ApiError.badRequest('REACTION_INVALID');
    }
    ctx.chats.setReactions(chatId, messageId, reaction);
    return true;
  },

  sendChatAction: ({ params: p }, ctx) => {
    const chatId = requireChatId(p);
    ctx.chats.forBot(chatId);
    const action = str(p, 'action') ?? '';
    if (!ACTIONS.has(action)) throw ApiError.badRequest('wrong parameter action in request');
    ctx.chats.setAction(chatId, action, ctx.clock());
    return true;
  },
};
