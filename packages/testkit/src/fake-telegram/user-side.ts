import type { CallbackQuery, Message, MessageEntity, Update, User } from '@grammyjs/types';
import { type FakeContext, unixTime } from './context.ts';
import { documentOf, photoSizes } from './methods/file-methods.ts';
import { compact } from './methods/message-parts.ts';
import type { ChatUser } from './state/chats.ts';
import { detectEntities } from './text/auto-entities.ts';
import { sortEntities } from './text/entity-types.ts';

export interface UserOptions {
  /** Private chat id; equals the user id on Telegram, so one of the two is enough. */
  chatId?: number;
  userId?: number;
  firstName?: string;
  lastName?: string;
  username?: string;
  languageCode?: string;
  /** Makes the message a reply to this message of the same chat. */
  replyTo?: number;
}

export type MediaKind = 'voice' | 'audio' | 'video' | 'video_note' | 'sticker';

export interface Sent {
  message: Message;
  update: Update;
}

function who(defaults: ChatUser, opts: UserOptions): ChatUser {
  const id = opts.userId ?? opts.chatId ?? defaults.id;
  if (opts.chatId !== undefined && opts.userId !== undefined && opts.chatId !== opts.userId) {
    throw new Error('fake-telegram: a private chat id equals its user id');
  }
  const base = id === defaults.id ? defaults : { id };
  return { ...base, ...compact({ firstName: opts.firstName, lastName: opts.lastName, username: opts.username, languageCode: opts.languageCode }) };
}

/** Simulated Telegram clients: what a person does in the chat becomes updates for the bot. */
export class UserSide {
  constructor(
    private readonly ctx: FakeContext,
    private readonly defaults: ChatUser,
  ) {}

  sends(text: string, opts: UserOptions = {}): Sent {
    if (text.trim() === '') throw new Error('fake-telegram: a Telegram client cannot send an empty message');
    if ([...text].length > 4096) throw new Error('fake-telegram: a Telegram client splits texts over 4096 characters');
    const entities = sortEntities(detectEntities(text, []));
    return this.post(opts, { text, entities });
  }

  sendsPhoto(bytes: Uint8Array, caption?: string, opts: UserOptions = {}): Sent {
    const file = this.ctx.files.add({ kind: 'photo', bytes: Buffer.from(bytes) });
    return this.post(opts, { photo: photoSizes(file), ...this.caption(caption) });
  }

  sendsDocument(bytes: Uint8Array, fileName: string, mimeType: string, caption?: string, opts: UserOptions = {}): Sent {
    const file = this.ctx.files.add({ kind: 'document', bytes: Buffer.from(bytes), fileName, mimeType });
    return this.post(opts, { document: documentOf(file), ...this.caption(caption) });
  }

  /** A voice note, audio, video, round video or sticker, as Telegram clients send them. */
  sendsMedia(kind: MediaKind, bytes: Uint8Array, opts: UserOptions = {}): Sent {
    // Where Telegram files each kind (the file_path getFile returns).
    const place = {
      voice: { folder: 'voice', ext: 'oga' },
      audio: { folder: 'music', ext: 'mp3' },
      video: { folder: 'videos', ext: 'mp4' },
      video_note: { folder: 'video_notes', ext: 'mp4' },
      sticker: { folder: 'stickers', ext: 'webp' },
    }[kind];
    const file = this.ctx.files.add({ kind: 'document', bytes: Buffer.from(bytes), place });
    const base = { file_id: file.fileId, file_unique_id: file.uniqueId, file_size: file.bytes.length };
    const content = {
      voice: { ...base, duration: 1, mime_type: 'audio/ogg' },
      audio: { ...base, duration: 1, mime_type: 'audio/mpeg' },
      video: { ...base, width: 320, height: 240, duration: 1, mime_type: 'video/mp4' },
      video_note: { ...base, length: 240, duration: 1 },
      sticker: { ...base, type: 'regular', width: 512, height: 512, is_animated: false, is_video: false, emoji: '👍' },
    }[kind];
    return this.post(opts, { [kind]: content });
  }

  /** Edits one of the user's own text messages; the bot gets an edited_message update. */
  edits(messageId: number, text: string, opts: UserOptions = {}): Sent {
    const u = who(this.defaults, opts);
    const old = this.ctx.chats.message(u.id, messageId);
    if (!old || old.from?.id !== u.id || old.text === undefined) {
      throw new Error(`fake-telegram: user ${u.id} has no text message ${messageId} to edit`);
    }
    const entities = sortEntities(detectEntities(text, []));
    const message = compact({ ...old, text, entities, edit_date: unixTime(this.ctx) }) as Message;
    this.ctx.chats.replace(u.id, message);
    const update = this.ctx.updates.push({ edited_message: structuredClone(message) } as Omit<Update, 'update_id'>);
    return { message: structuredClone(message), update };
  }

  /**
   * Presses an inline button. Fails when that message shows no button with this data, since a
   * real client cannot send it; `force` skips the check to simulate tampered or stale data.
   */
  presses(messageId: number, callbackData: string, opts: UserOptions & { force?: boolean } = {}): { callbackQueryId: string; update: Update } {
    const user = who(this.defaults, opts);
    const message = this.ctx.chats.message(user.id, messageId);
    if (!message) throw new Error(`fake-telegram: chat ${user.id} shows no message ${messageId}`);
    const buttons = message.reply_markup?.inline_keyboard.flat() ?? [];
    const present = buttons.some((b) => 'callback_data' in b && b.callback_data === callbackData);
    if (!present && !opts.force) {
      throw new Error(`fake-telegram: message ${messageId} has no button with callback data ${JSON.stringify(callbackData)}`);
    }
    const from = this.user(user);
    const query: CallbackQuery = {
      id: this.ctx.callbacks.newId(),
      from,
      message: structuredClone(message),
      chat_instance: `-${(BigInt(user.id) * 7919n + 104729n).toString()}`,
      data: callbackData,
    };
    this.ctx.callbacks.add(query, this.ctx.clock());
    const update = this.ctx.updates.push({ callback_query: query });
    return { callbackQueryId: query.id, update };
  }

  /** Blocking makes bot calls fail with 403 and tells the bot through my_chat_member. */
  setBlocked(chatId: number, blocked: boolean): Update {
    const state = this.ctx.chats.find(chatId);
    if (!state) throw new Error(`fake-telegram: no chat ${chatId}`);
    this.ctx.chats.setBlocked(chatId, blocked);
    const bot: User = { id: this.ctx.me.id, is_bot: true, first_name: this.ctx.me.first_name, username: this.ctx.me.username };
    const member = { status: 'member' as const, user: bot };
    const kicked = { status: 'kicked' as const, user: bot, until_date: 0 };
    return this.ctx.updates.push({
      my_chat_member: {
        chat: state.chat,
        from: state.user,
        date: unixTime(this.ctx),
        old_chat_member: blocked ? member : kicked,
        new_chat_member: blocked ? kicked : member,
      },
    });
  }

  private caption(caption: string | undefined): { caption?: string; caption_entities?: MessageEntity[] } {
    if (caption === undefined || caption.trim() === '') return {};
    return compact({ caption, caption_entities: sortEntities(detectEntities(caption, [])) });
  }

  private user(u: ChatUser): User {
    return structuredClone(this.ctx.chats.open(u).user);
  }

  private post(opts: UserOptions, content: Record<string, unknown>): Sent {
    const u = who(this.defaults, opts);
    const from = this.user(u);
    const reply = opts.replyTo === undefined ? undefined : this.ctx.chats.message(u.id, opts.replyTo);
    if (opts.replyTo !== undefined && !reply) throw new Error(`fake-telegram: chat ${u.id} shows no message ${opts.replyTo}`);
    const message = this.ctx.chats.add(u.id, (message_id, chat) => {
      const replied = reply ? structuredClone(reply) : undefined;
      if (replied) delete (replied as { reply_to_message?: Message }).reply_to_message;
      return compact({ message_id, from, chat, date: unixTime(this.ctx), reply_to_message: replied, ...content }) as unknown as Message;
    });
    const update = this.ctx.updates.push({ message: structuredClone(message) } as Omit<Update, 'update_id'>);
    return { message: structuredClone(message), update };
  }
}
