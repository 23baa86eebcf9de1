// One whole Bria for Telegram tests: the scenario system (Postgres, hub + engine, mock models, a
// real node agent running the real CLIs in tmux), the fake Bot API, and the bot as a child process.
// The user helpers below do what a person does in the chat and look at what they would see.
import path from 'node:path';
import type { InlineKeyboardButton, InlineKeyboardMarkup, Message } from '@grammyjs/types';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import { ADMIN_URL_ENV } from '@bria/testkit/postgres';
import { type Executor, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';
import { BotProcess } from './bot-process.ts';

type Btn = InlineKeyboardButton.CallbackButton;

/** The scenario system's database, reached by URL (the bot process needs one). */
async function databaseUrl(sys: System): Promise<string> {
  const [row] = await sys.db.$queryRaw<{ db: string }[]>`select current_database() as db`;
  const admin = process.env[ADMIN_URL_ENV];
  if (!admin || !row) throw new Error('no test Postgres cluster (run through vitest)');
  const url = new URL(admin);
  url.pathname = `/${row.db}`;
  return url.toString();
}

export async function startWorld(o: { executors?: Executor[]; slowChunks?: number; slowChunkMs?: number } = {}) {
  const sys = await startSystem({ executors: o.executors, slowChunks: o.slowChunks ?? 40, slowChunkMs: o.slowChunkMs ?? 150 });
  await sys.startAgent();
  // The system's own chat row (1001) is this user's private chat: the bot and the engine's notices meet there.
  const userId = Number(sys.chatId);
  const fake: FakeTelegram = await startFakeTelegram({ user: { id: userId, firstName: 'Ada', username: 'ada', languageCode: 'en' } });
  const bot = new BotProcess({
    databaseUrl: await databaseUrl(sys),
    apiRoot: fake.apiRoot,
    token: fake.token,
    allowedUsers: [userId],
    dataDir: path.join(sys.root, 'bot-data'),
    logFile: path.join(sys.root, 'bot.log'),
  });
  await bot.start();

  const buttons = (m: Message | undefined) => ((m?.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? []).flat() as Btn[];
  const messages = () => fake.chatMessages(userId);
  const bots = () => messages().filter((m) => m.from?.is_bot);

  const w = {
    sys,
    fake,
    bot,
    userId,
    buttons,
    messages,
    /** The bot's messages sent after `afterId` (exclusive) that match. */
    botMessagesAfter: (afterId: number, pred: (m: Message) => boolean = () => true) => bots().filter((m) => m.message_id > afterId && pred(m)),
    lastId: () => messages().at(-1)?.message_id ?? 0,
    say: (text: string) => fake.userSends(text).message,
    /** The last bot message matching, once one exists. */
    async waitFor(pred: (m: Message) => boolean, timeoutMs = 30_000): Promise<Message> {
      const ms = await fake.waitForChat((all) => all.some((m) => m.from?.is_bot && pred(m)), { chatId: userId, timeoutMs });
      return ms.filter((m) => m.from?.is_bot && pred(m)).at(-1) as Message;
    },
    press(m: Message, label: string | RegExp) {
      const b = buttons(m).find((x) => (typeof label === 'string' ? x.text === label : label.test(x.text)));
      if (!b) throw new Error(`no button ${label} in ${JSON.stringify(buttons(m).map((x) => x.text))}`);
      return fake.userPresses(m.message_id, b.callback_data);
    },
    /** The card message the chat currently shows (as the user sees it, edits applied). */
    async card(): Promise<Message> {
      const chat = await sys.db.telegramChat.findUniqueOrThrow({ where: { chatId: BigInt(userId) } });
      const m = messages().find((x) => x.message_id === chat.cardMessageId);
      if (!m) throw new Error('the chat shows no card');
      return m;
    },
    /** Waits until the current card's text matches (the card is edited in place). */
    async waitCard(pred: (text: string) => boolean, timeoutMs = 45_000): Promise<Message> {
      let seen = '';
      return waitUntil(
        'the card',
        async () => {
          const c = await w.card().catch(() => null);
          seen = c?.text ?? '';
          return c && pred(seen) ? c : null;
        },
        timeoutMs,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; the card shows ${JSON.stringify(seen)}`);
      });
    },
    async callbackAnswer(callbackQueryId: string) {
      return waitUntil('the callback answer', async () => fake.callbackAnswers().find((a) => a.callbackQueryId === callbackQueryId), 15_000);
    },
    /** The `/new` flow as a user does it: one node (auto-picked), the executor button, a typed folder. */
    async newSession(executor: Executor, folder: string): Promise<{ sessionId: string; card: Message }> {
      const from = w.lastId();
      w.say('/new');
      const pick = await w.waitFor((m) => m.message_id > from && (m.text?.includes('which agent?') ?? false));
      w.press(pick, executor === 'claude' ? 'Claude Code' : 'Codex');
      await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Which folder?') ?? false));
      w.say(folder);
      const card = await w.waitFor((m) => m.message_id > from && (m.text?.includes(`Folder: ${folder}`) ?? false));
      const chat = await sys.db.telegramChat.findUniqueOrThrow({ where: { chatId: BigInt(userId) } });
      return { sessionId: chat.cardSessionId as string, card };
    },
    async dispose() {
      await bot.stop().catch(() => undefined);
      await fake.close().catch(() => undefined);
      await sys.dispose();
    },
  };
  return w;
}
export type World = Awaited<ReturnType<typeof startWorld>>;
