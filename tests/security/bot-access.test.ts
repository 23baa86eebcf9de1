import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '@bria/core/db';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { PASSIVE, startBot } from './bot-rig.ts';
import { capturedLogger, dbFingerprint, pause } from './support.ts';

/**
 * A Telegram user who is not on the allow-list gets one polite refusal a day, and nothing else; no
 * update from outside a private chat with an allowed user reaches a feature, the owner's included.
 */
let tdb: TestDatabase;
let db: Db;
let bot: Awaited<ReturnType<typeof startBot>>;
const logs = capturedLogger('bot');
const OWNER = 100200300;
const EVE = { chatId: 666, userId: 666, firstName: 'Eve', languageCode: 'en' };
const REFUSAL = 'Sorry, this is a private bot. It only answers its owner.';
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url, { max: 6 });
  // Something to steal: an online node with an open session that is the owner's active one.
  await db.node.create({ data: { id: '00000000-0000-4000-8000-00000000000a', name: 'owner-laptop', online: true, enabledExecutors: ['claude'] } });
  await db.session.create({
    data: {
      id: '10000000-0000-4000-8000-00000000000a',
      nodeId: '00000000-0000-4000-8000-00000000000a',
      executor: 'claude',
      folder: '/home/owner/secret-project',
      nativeSessionId: 'n-1',
      state: 'Ready',
      lifetimeDeadline: new Date(Date.now() + 3600_000),
    },
  });
  bot = await startBot(db, { allowed: [OWNER], log: logs.log });
});
afterAll(async () => {
  await bot?.stop();
  await db?.$disconnect();
  await tdb?.drop();
});

describe('the bot refuses strangers', () => {
  it('messages, commands, files and button presses get one refusal in all; nothing is stored, downloaded or changed', async () => {
    const before = await dbFingerprint(tdb.url);
    const texts = [
      'hello there, run rm -rf / for me',
      '/start',
      '/new',
      '/login',
      '/sessions',
      '/settings',
      '/archive',
      '/status',
      '/nodes',
      '/home/eve/project',
    ];
    for (const t of texts) bot.fake.userSends(t, EVE);
    bot.fake.userSendsDocument(Buffer.from('stolen secrets'), 'payload.sh', 'text/x-sh', 'run this', EVE);
    bot.fake.userSendsPhoto(PNG, 'a photo', EVE);
    // Buttons Eve cannot have seen, forged to look like the owner's: stop, close, open, settings, new.
    const presses = [
      'stop:1:10000000-0000-4000-8000-00000000000a',
      'closeYes:1:10000000-0000-4000-8000-00000000000a',
      'open:0:10000000-0000-4000-8000-00000000000a',
      'set:0:life=never',
      'new:0',
      'fnode:0::00000000-0000-4000-8000-00000000000a',
    ];
    const ids = presses.map((d) => bot.fake.userPresses(1, d, { ...EVE, force: true }).callbackQueryId);
    // Every press is answered (no spinner left turning), and once they all are, every update was handled.
    await expect.poll(() => bot.fake.callbackAnswers().filter((a) => ids.includes(a.callbackQueryId)).length, { timeout: 10_000 }).toBe(presses.length);
    await expect.poll(() => bot.fake.pendingUpdates(), { timeout: 10_000 }).toBe(0);
    bot.fake.userSends('one more, after everything', EVE);
    await expect.poll(() => bot.fake.pendingUpdates(), { timeout: 10_000 }).toBe(0);
    await pause(1500);

    const fromBot = bot.fake.chatMessages(EVE.chatId).filter((m) => m.from?.is_bot);
    expect(fromBot.map((m) => m.text)).toEqual([REFUSAL]);
    expect(fromBot.every((m) => m.reply_markup === undefined)).toBe(true);
    const answers = bot.fake.callbackAnswers().filter((a) => ids.includes(a.callbackQueryId));
    expect(answers.map((a) => a.text)).toEqual(Array(presses.length).fill(undefined));
    // Every active call the bot made: the one refusal and the callback answers, nothing more (no getFile, no edit, no reaction).
    const active = bot.fake.calls().filter((c) => !PASSIVE.has(c.method));
    expect(active.map((c) => c.method).sort()).toEqual([...Array(presses.length).fill('answerCallbackQuery'), 'sendMessage'].sort());
    expect(active.every((c) => c.method !== 'sendMessage' || Number(c.params.chat_id) === EVE.chatId)).toBe(true);
    expect(bot.fake.calls('file')).toEqual([]);
    expect(await dbFingerprint(tdb.url)).toEqual(before);
    expect(await db.loginToken.count()).toBe(0);
    const text = logs.text();
    for (const s of ['rm -rf', 'stolen secrets', 'payload.sh', 'run this', '/home/eve/project', 'secret-project']) expect(text).not.toContain(s);
  });

  it('the owner in a group, a channel or an inline message is not served: presses are answered with nothing, nothing else happens', async () => {
    const before = await dbFingerprint(tdb.url);
    const calls = bot.fake.calls().length;
    const owner = { id: OWNER, is_bot: false, first_name: 'Ada', language_code: 'en' };
    const group = { id: -100777, type: 'supergroup' as const, title: 'dev chat' };
    const date = Math.floor(Date.now() / 1000);
    // A message of the bot in the group, as a client would show it with its buttons (the bot never posts there).
    const card = {
      message_id: 5,
      date,
      chat: group,
      from: { id: 7000000001, is_bot: true, first_name: 'Bria' },
      text: 'card',
      reply_markup: { inline_keyboard: [[{ text: 'Stop', callback_data: 'stop:1:10000000-0000-4000-8000-00000000000a' }]] },
    };
    const updates = [
      { callback_query: { id: 'grp-1', from: owner, chat_instance: '-1', message: card, data: 'stop:1:10000000-0000-4000-8000-00000000000a' } },
      { callback_query: { id: 'grp-2', from: owner, chat_instance: '-1', message: card, data: 'closeYes:1:10000000-0000-4000-8000-00000000000a' } },
      { callback_query: { id: 'inl-1', from: owner, chat_instance: '-2', inline_message_id: 'AAAA', data: 'stop:1:10000000-0000-4000-8000-00000000000a' } },
      { message: { message_id: 6, date, chat: group, from: owner, text: '/start' } },
      { message: { message_id: 7, date, chat: group, from: owner, text: 'hello agent' } },
      { edited_message: { message_id: 7, date, edit_date: date, chat: group, from: owner, text: 'hello agent, edited' } },
      { channel_post: { message_id: 8, date, chat: { id: -100888, type: 'channel' as const, title: 'news' }, text: '/status' } },
      {
        my_chat_member: {
          chat: group,
          from: owner,
          date,
          old_chat_member: { status: 'left' as const, user: card.from },
          new_chat_member: { status: 'member' as const, user: card.from },
        },
      },
    ];
    for (const u of updates) bot.fake.injectUpdate(u as never);
    await expect
      .poll(() => bot.fake.callbackAnswers().filter((a) => ['grp-1', 'grp-2', 'inl-1'].includes(a.callbackQueryId)).length, { timeout: 10_000 })
      .toBe(3);
    await expect.poll(() => bot.fake.pendingUpdates(), { timeout: 10_000 }).toBe(0);
    await pause(1500);
    expect(
      bot.fake
        .callbackAnswers()
        .filter((a) => ['grp-1', 'grp-2', 'inl-1'].includes(a.callbackQueryId))
        .map((a) => a.text),
    ).toEqual([undefined, undefined, undefined]);
    expect(
      bot.fake
        .calls()
        .slice(calls)
        .filter((c) => !PASSIVE.has(c.method))
        .map((c) => c.method),
    ).toEqual(['answerCallbackQuery', 'answerCallbackQuery', 'answerCallbackQuery']);
    expect(await dbFingerprint(tdb.url)).toEqual(before);
    expect(await db.agentCommand.count()).toBe(0);
    expect((await db.session.findUniqueOrThrow({ where: { id: '10000000-0000-4000-8000-00000000000a' } })).state).toBe('Ready');
  });

  it('control: the owner sending the same /start is answered with Bria itself', async () => {
    bot.fake.userSends('/start', { chatId: OWNER, userId: OWNER, firstName: 'Ada', languageCode: 'en' });
    const ms = await bot.fake.waitForChat((m) => m.filter((x) => x.from?.is_bot).length >= 1, { chatId: OWNER });
    expect(ms.find((m) => m.from?.is_bot)?.text).not.toBe(REFUSAL);
  });

  it('a typed folder with .. or control characters is refused with its reason; no session is created', async () => {
    const owner = { chatId: OWNER, userId: OWNER, firstName: 'Ada', languageCode: 'en' };
    const sessions = await db.session.count();
    const cases: [string, string][] = [
      ['/home/owner/../../etc', 'without . or .. parts'],
      ['/srv/x\u001b[2J', 'control characters'],
    ];
    for (const [folder, reason] of cases) {
      bot.fake.userSends('/new', owner);
      const seen = bot.fake.chatMessages(OWNER).length;
      await bot.fake.waitForChat((m) => m.length > seen && m.at(-1)?.from?.is_bot === true, { chatId: OWNER });
      bot.fake.userSends(folder, owner);
      const ms = await bot.fake.waitForChat((m) => m.some((x) => x.from?.is_bot && x.text?.includes(reason)), { chatId: OWNER });
      expect(ms.at(-1)?.text).toContain(reason);
    }
    expect(await db.session.count()).toBe(sessions);
    expect(await db.agentCommand.count()).toBe(0);
  });
});
