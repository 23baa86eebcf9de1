import type { AddressInfo } from 'node:net';
import type { BotCommand, Message, ReactionType, Update, UserFromGetMe } from '@grammyjs/types';
import type { FakeContext } from './context.ts';
import { type Fault, FaultPlan } from './faults.ts';
import { FloodControl, type FloodLimit } from './flood-control.ts';
import { botMethods, commandScopeKey } from './methods/bot-methods.ts';
import { draftMethods } from './methods/draft-methods.ts';
import { fileMethods } from './methods/file-methods.ts';
import { interactionMethods } from './methods/interaction-methods.ts';
import { messageMethods } from './methods/message-methods.ts';
import { type CallRecord, Recorder } from './recorder.ts';
import { createFakeServer } from './server.ts';
import { CallbackStore, type CallbackAnswer } from './state/callbacks.ts';
import { ChatStore, type ChatUser, type Draft } from './state/chats.ts';
import { FileStore } from './state/file-store.ts';
import { UpdateQueue } from './state/update-queue.ts';
import { type MediaKind, type Sent, type UserOptions, UserSide } from './user-side.ts';

export type { CallbackAnswer, CallRecord, ChatUser, Draft, Fault, FloodLimit, MediaKind, Sent, UserOptions };

export interface FakeTelegramOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** `<bot id>:<secret>`; the numeric part becomes the bot's user id. */
  token?: string;
  botUser?: { firstName?: string; username?: string };
  /** The user behind the user* helpers when no ids are given. */
  user?: ChatUser;
  /** Delay added to every request, in ms. */
  latencyMs?: number;
  /** How long a callback query may be answered, in ms. */
  callbackQueryTtlMs?: number;
  /** Opt-in per-chat flood control for send/edit methods (real 429 + retry_after past it). */
  floodLimit?: FloodLimit;
}

export interface FakeTelegram {
  apiRoot: string;
  token: string;
  port: number;
  me: UserFromGetMe;
  /** Default simulated user; its private chat id equals its id. */
  user: ChatUser;
  latencyMs: number;
  /** Per-chat flood control; undefined turns it off. */
  floodLimit: FloodLimit | undefined;
  close(): Promise<void>;
  userSends(text: string, opts?: UserOptions): Sent;
  userPresses(messageId: number, callbackData: string, opts?: UserOptions & { force?: boolean }): { callbackQueryId: string; update: Update };
  userSendsPhoto(bytes: Uint8Array, caption?: string, opts?: UserOptions): Sent;
  userSendsDocument(bytes: Uint8Array, fileName: string, mimeType: string, caption?: string, opts?: UserOptions): Sent;
  userSendsMedia(kind: MediaKind, bytes: Uint8Array, opts?: UserOptions): Sent;
  userEdits(messageId: number, text: string, opts?: UserOptions): Sent;
  userBlocksBot(chatId?: number): Update;
  /**
   * Delivers an update no helper simulates (a group chat, a channel post, an inline message's button),
   * exactly as given; a callback query in it can be answered like any other.
   */
  injectUpdate(update: Omit<Update, 'update_id'>): Update;
  userUnblocksBot(chatId?: number): Update;
  calls(method?: string): CallRecord[];
  waitForCall(method: string | undefined, predicate?: (r: CallRecord) => boolean, timeoutMs?: number): Promise<CallRecord>;
  chatMessages(chatId?: number): Message[];
  /** Resolves with the chat's visible messages once the predicate holds (checked after every call). */
  waitForChat(predicate: (messages: Message[]) => boolean, opts?: { chatId?: number; timeoutMs?: number }): Promise<Message[]>;
  callbackAnswers(): CallbackAnswer[];
  reactions(chatId: number, messageId: number): ReactionType[];
  lastChatAction(chatId?: number): { action: string; at: number } | undefined;
  /** The streamed draft (sendMessageDraft) the user sees now, if any. */
  chatDraft(chatId?: number): Draft | undefined;
  botCommands(opts?: { scope?: object; languageCode?: string }): BotCommand[];
  fileBytes(fileId: string): Buffer | undefined;
  pendingUpdates(): number;
  failNext(method: string, fault: Fault, times?: number): void;
  clearFaults(): void;
  /** Moves the fake's clock forward (callback query expiry, message dates). */
  advanceClock(ms: number): void;
}

function waitForChat(recorder: Recorder, read: () => Message[], predicate: (messages: Message[]) => boolean, timeoutMs: number): Promise<Message[]> {
  const now = read();
  if (predicate(now)) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      const texts = read().map((m) => m.text ?? m.caption ?? '[media]');
      reject(new Error(`fake-telegram: chat did not reach the expected state within ${timeoutMs} ms; it shows ${JSON.stringify(texts)}`));
    }, timeoutMs);
    const unsubscribe = recorder.subscribe(() => {
      const messages = read();
      if (!predicate(messages)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(messages);
    });
  });
}

const DEFAULT_TOKEN = '7000000001:AAFakeBriaTestTokenForLocalBotApi0001';

export async function startFakeTelegram(opts: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const token = opts.token ?? DEFAULT_TOKEN;
  const botId = Number(/^(\d+):/.exec(token)?.[1] ?? 7000000001);
  const me: UserFromGetMe = {
    id: botId,
    is_bot: true,
    first_name: opts.botUser?.firstName ?? 'Bria',
    username: opts.botUser?.username ?? 'bria_test_bot',
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
    can_manage_bots: false,
    supports_join_request_queries: false,
  };
  const user: ChatUser = opts.user ?? { id: 100200300, firstName: 'Ada', username: 'ada_tester', languageCode: 'en' };
  let clockOffset = 0;
  const ctx: FakeContext = {
    me,
    chats: new ChatStore(),
    updates: new UpdateQueue(400_000_001),
    files: new FileStore(),
    callbacks: new CallbackStore(opts.callbackQueryTtlMs ?? 15_000),
    commands: new Map(),
    menuButtons: new Map(),
    webhook: { url: '' },
    clock: () => Date.now() + clockOffset,
  };
  ctx.chats.open(user);
  const recorder = new Recorder();
  const faults = new FaultPlan();
  const flood = new FloodControl(opts.floodLimit);
  const side = new UserSide(ctx, user);
  const state = { latencyMs: opts.latencyMs ?? 0 };
  const server = createFakeServer({
    token,
    ctx,
    recorder,
    faults,
    flood,
    latencyMs: () => state.latencyMs,
    handlers: { ...botMethods, ...messageMethods, ...interactionMethods, ...fileMethods, ...draftMethods },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    port,
    me,
    user,
    get latencyMs() {
      return state.latencyMs;
    },
    set latencyMs(ms: number) {
      state.latencyMs = ms;
    },
    get floodLimit() {
      return flood.limit;
    },
    set floodLimit(limit: FloodLimit | undefined) {
      flood.limit = limit;
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        ctx.updates.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
    userSends: (text, o) => side.sends(text, o),
    userPresses: (messageId, data, o) => side.presses(messageId, data, o),
    userSendsPhoto: (bytes, caption, o) => side.sendsPhoto(bytes, caption, o),
    userSendsDocument: (bytes, name, mime, caption, o) => side.sendsDocument(bytes, name, mime, caption, o),
    userSendsMedia: (kind, bytes, o) => side.sendsMedia(kind, bytes, o),
    userEdits: (messageId, text, o) => side.edits(messageId, text, o),
    userBlocksBot: (chatId = user.id) => side.setBlocked(chatId, true),
    injectUpdate: (update) => {
      if (update.callback_query) ctx.callbacks.add(structuredClone(update.callback_query), ctx.clock());
      return ctx.updates.push(structuredClone(update));
    },
    userUnblocksBot: (chatId = user.id) => side.setBlocked(chatId, false),
    calls: (method) => recorder.list(method),
    waitForCall: (method, predicate = () => true, timeoutMs = 5_000) => recorder.waitFor(method, predicate, timeoutMs),
    chatMessages: (chatId = user.id) => ctx.chats.visible(chatId),
    waitForChat: (predicate, o) => waitForChat(recorder, () => ctx.chats.visible(o?.chatId ?? user.id), predicate, o?.timeoutMs ?? 5_000),
    callbackAnswers: () => ctx.callbacks.list(),
    reactions: (chatId, messageId) => ctx.chats.reactions(chatId, messageId),
    lastChatAction: (chatId = user.id) => {
      const last = ctx.chats.find(chatId)?.lastAction;
      return last ? { ...last } : undefined;
    },
    chatDraft: (chatId = user.id) => ctx.chats.draft(chatId, ctx.clock()),
    botCommands: (o) => structuredClone(ctx.commands.get(commandScopeKey(o?.scope, o?.languageCode)) ?? []),
    fileBytes: (fileId) => {
      const file = ctx.files.get(fileId);
      return file ? Buffer.from(file.bytes) : undefined;
    },
    pendingUpdates: () => ctx.updates.pendingCount,
    failNext: (method, fault, times = 1) => faults.add(method, fault, times),
    clearFaults: () => faults.clear(),
    advanceClock: (ms) => {
      clockOffset += ms;
    },
  };
}
