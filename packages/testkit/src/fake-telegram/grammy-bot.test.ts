import { Bot, InlineKeyboard } from 'grammy';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from './index.ts';

let fake: FakeTelegram | undefined;
let bot: Bot | undefined;
afterEach(async () => {
  if (bot?.isRunning()) await bot.stop();
  await fake?.close();
});

async function startBot(setup: (b: Bot) => void): Promise<{ fake: FakeTelegram; bot: Bot }> {
  fake = await startFakeTelegram();
  bot = new Bot(fake.token, { client: { apiRoot: fake.apiRoot } });
  setup(bot);
  bot.catch((err) => {
    throw err.error;
  });
  const started = new Promise<void>((resolve) => {
    void bot?.start({ timeout: 30, onStart: () => resolve() });
  });
  await started;
  return { fake, bot };
}

describe('a real grammY bot on long polling', () => {
  it('receives a user message inside the held poll and replies; stop() confirms the update', async () => {
    const { fake } = await startBot((b) => {
      b.command('start', (ctx) => ctx.reply('<b>Welcome</b>, pick a session', { parse_mode: 'HTML' }));
      b.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`, { reply_parameters: { message_id: ctx.message.message_id } }));
    });
    // The bot is now parked in one getUpdates with timeout 30: idle time costs no requests.
    await new Promise((r) => setTimeout(r, 600));
    const pollsBefore = fake.calls('getUpdates').length;
    expect(pollsBefore).toBe(1);
    expect(fake.calls('getUpdates')[0]?.outcome).toBeUndefined();
    const sentAt = Date.now();
    const { message } = fake.userSends('/start');
    const reply = await fake.waitForCall('sendMessage', (c) => c.status === 200, 3000);
    expect(reply.at - sentAt).toBeLessThan(2000);
    // One poll returned with the update and one new poll started: no busy loop.
    expect(fake.calls('getUpdates').length - pollsBefore).toBeLessThanOrEqual(2);
    expect(message.entities).toEqual([{ type: 'bot_command', offset: 0, length: 6 }]);

    fake.userSends('hello bot');
    await fake.waitForCall('sendMessage', (c) => c.params.text === 'echo: hello bot', 3000);
    const seen = fake.chatMessages();
    expect(seen.map((m) => [m.from?.is_bot, m.text])).toEqual([
      [false, '/start'],
      [true, 'Welcome, pick a session'],
      [false, 'hello bot'],
      [true, 'echo: hello bot'],
    ]);
    expect(seen.map((m) => m.message_id)).toEqual([1, 2, 3, 4]);
    expect(seen[1]?.entities).toEqual([{ type: 'bold', offset: 0, length: 7 }]);
    expect(seen[3]?.reply_to_message?.message_id).toBe(3);

    await bot?.stop();
    // grammY's stop() confirms the last update, so nothing is left for the next start.
    expect(fake.pendingUpdates()).toBe(0);
    const updateIds = fake
      .calls('getUpdates')
      .flatMap((c) => ((c.response as { result?: Array<{ update_id: number }> })?.result ?? []).map((u) => u.update_id));
    expect(new Set(updateIds).size).toBe(2);
  });

  it('runs a button round trip: keyboard, press, answer, edit; a second answer is refused', async () => {
    let secondAnswer: (e: unknown) => void = () => {};
    const answerError = new Promise<unknown>((resolve) => {
      secondAnswer = resolve;
    });
    const { fake } = await startBot((b) => {
      b.command('menu', (ctx) => ctx.reply('Choose', { reply_markup: new InlineKeyboard().text('Stop', 'stop:1') }));
      b.callbackQuery('stop:1', async (ctx) => {
        await ctx.answerCallbackQuery({ text: 'Stopping' });
        await ctx.editMessageText('Stopped');
        secondAnswer(await ctx.answerCallbackQuery().catch((e: unknown) => e));
      });
    });
    fake.userSends('/menu');
    const sent = await fake.waitForCall('sendMessage', (c) => c.status === 200, 3000);
    const menuId = (sent.response as { result: { message_id: number } }).result.message_id;
    const { callbackQueryId } = fake.userPresses(menuId, 'stop:1');
    await fake.waitForCall('editMessageText', (c) => c.status === 200, 3000);
    expect(fake.callbackAnswers()).toMatchObject([{ callbackQueryId, text: 'Stopping', showAlert: false }]);
    expect(String(((await answerError) as Error).message)).toContain('query is too old and response timeout expired or query ID is invalid');
    const visible = fake.chatMessages().find((m) => m.message_id === menuId);
    expect(visible?.text).toBe('Stopped');
    expect(visible?.reply_markup).toBeUndefined();
    expect(visible?.edit_date).toBeTypeOf('number');
    // The keyboard is gone, so a real client can no longer press it.
    expect(() => fake.userPresses(menuId, 'stop:1')).toThrow(/no button/);
  });
});

describe('user edits and chat waiting', () => {
  it('an edited user message reaches the bot as edited_message; waitForChat sees the reply', async () => {
    const { fake } = await startBot((b) => {
      b.on('edited_message:text', (ctx) => ctx.reply(`you changed it to: ${ctx.editedMessage.text}`));
    });
    const { message } = fake.userSends('tpyo');
    const edited = fake.userEdits(message.message_id, 'typo');
    expect(edited.message.edit_date).toBeTypeOf('number');
    const seen = await fake.waitForChat((ms) => ms.some((m) => m.text === 'you changed it to: typo'), { timeoutMs: 3000 });
    expect(seen.map((m) => m.text)).toEqual(['typo', 'you changed it to: typo']);
    await expect(fake.waitForChat((ms) => ms.length > 5, { timeoutMs: 200 })).rejects.toThrow(/did not reach the expected state/);
  });
});
