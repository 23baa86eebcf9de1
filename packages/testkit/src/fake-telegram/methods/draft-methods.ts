import type { MessageEntity } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';
import type { Handler } from '../context.ts';
import { int, json, requireChatId, str } from '../params.ts';
import { formatText } from '../text/formatted-text.ts';

export const draftMethods: Record<string, Handler> = {
  /** Streams a partial answer; an empty text is the "Thinking…" placeholder. Kept until the next message or 30 s. */
  sendMessageDraft: ({ params: p }, ctx) => {
    const chatId = requireChatId(p);
    ctx.chats.forBot(chatId);
    const draftId = int(p, 'draft_id');
    if (!draftId) throw ApiError.badRequest('draft_id must be non-zero');
    const text = str(p, 'text') ?? '';
    const entities = json<MessageEntity[]>(p, 'entities', "can't parse entities JSON object");
    const parsed = text === '' ? { text: '', entities: [] } : formatText({ text, parseMode: str(p, 'parse_mode'), entities, kind: 'text' });
    ctx.chats.setDraft(chatId, { draftId, text: parsed?.text ?? '', entities: parsed?.entities ?? [], at: ctx.clock() });
    return true;
  },
};
