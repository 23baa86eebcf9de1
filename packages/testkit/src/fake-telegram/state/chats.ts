import type { Chat, Message, MessageEntity, ReactionType, User } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';

export interface ChatUser {
  id: number;
  firstName?: string;
  lastName?: string;
  username?: string;
  languageCode?: string;
}

export interface Draft {
  draftId: number;
  text: string;
  entities: MessageEntity[];
  at: number;
}

// A streamed draft is a temporary preview that disappears after 30 seconds.
const DRAFT_LIFETIME_MS = 30_000;

interface ChatState {
  chat: Chat.PrivateChat;
  user: User;
  nextMessageId: number;
  messages: Map<number, Message>;
  reactions: Map<number, ReactionType[]>;
  lastAction?: { action: string; at: number };
  draft?: Draft;
  blocked: boolean;
}

/** Private chats between the bot and simulated users, holding what each user currently sees. */
export class ChatStore {
  private readonly chats = new Map<number, ChatState>();

  /** Opens (or refreshes) the private chat of a user; chat id equals user id as on Telegram. */
  open(u: ChatUser): ChatState {
    const existing = this.chats.get(u.id);
    const user: User = { id: u.id, is_bot: false, first_name: u.firstName ?? existing?.user.first_name ?? 'Test' };
    const lastName = u.lastName ?? existing?.user.last_name;
    const username = u.username ?? existing?.user.username;
    const languageCode = u.languageCode ?? existing?.user.language_code;
    if (lastName) user.last_name = lastName;
    if (username) user.username = username;
    if (languageCode) user.language_code = languageCode;
    const chat: Chat.PrivateChat = { id: u.id, type: 'private', first_name: user.first_name };
    if (lastName) chat.last_name = lastName;
    if (username) chat.username = username;
    if (existing) {
      existing.user = user;
      existing.chat = chat;
      return existing;
    }
    const state: ChatState = { chat, user, nextMessageId: 1, messages: new Map(), reactions: new Map(), blocked: false };
    this.chats.set(u.id, state);
    return state;
  }

  find(chatId: number): ChatState | undefined {
    return this.chats.get(chatId);
  }

  /** The chat a bot call addresses; unknown ids and users who blocked the bot fail like on Telegram. */
  forBot(chatId: number): ChatState {
    const state = this.chats.get(chatId);
    if (!state) throw ApiError.badRequest('chat not found');
    if (state.blocked) throw new ApiError(403, 'Forbidden: bot was blocked by the user');
    return state;
  }

  add(chatId: number, build: (messageId: number, chat: Chat.PrivateChat) => Message): Message {
    const state = this.forChat(chatId);
    const message = build(state.nextMessageId++, state.chat);
    state.messages.set(message.message_id, message);
    // A real message from the bot replaces whatever draft was being streamed.
    if (message.from?.is_bot) delete state.draft;
    return message;
  }

  replace(chatId: number, message: Message): void {
    this.forChat(chatId).messages.set(message.message_id, message);
  }

  delete(chatId: number, messageId: number): boolean {
    const state = this.forChat(chatId);
    state.reactions.delete(messageId);
    return state.messages.delete(messageId);
  }

  message(chatId: number, messageId: number): Message | undefined {
    return this.chats.get(chatId)?.messages.get(messageId);
  }

  visible(chatId: number): Message[] {
    const state = this.chats.get(chatId);
    if (!state) return [];
    return [...state.messages.values()].sort((a, b) => a.message_id - b.message_id).map((m) => structuredClone(m));
  }

  setReactions(chatId: number, messageId: number, reactions: ReactionType[]): void {
    this.forChat(chatId).reactions.set(messageId, reactions);
  }

  reactions(chatId: number, messageId: number): ReactionType[] {
    return structuredClone(this.chats.get(chatId)?.reactions.get(messageId) ?? []);
  }

  setAction(chatId: number, action: string, at: number): void {
    this.forChat(chatId).lastAction = { action, at };
  }

  setDraft(chatId: number, draft: Draft): void {
    this.forChat(chatId).draft = draft;
  }

  draft(chatId: number, now: number): Draft | undefined {
    const draft = this.chats.get(chatId)?.draft;
    return draft && now - draft.at < DRAFT_LIFETIME_MS ? structuredClone(draft) : undefined;
  }

  setBlocked(chatId: number, blocked: boolean): void {
    this.forChat(chatId).blocked = blocked;
  }

  private forChat(chatId: number): ChatState {
    const state = this.chats.get(chatId);
    if (!state) throw new Error(`fake-telegram: no chat ${chatId}`);
    return state;
  }
}
