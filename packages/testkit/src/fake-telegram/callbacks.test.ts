import { Api } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from './index.ts';
import { callRaw } from './test-support.ts';

let fake: FakeTelegram;
let api: Api;
let messageId: number;
beforeEach(async () => {
  fake = await startFakeTelegram({ callbackQueryTtlMs: 15_000 });
  api = new Api(fake.token, { apiRoot: fake.apiRoot });
  const sent = await api.sendMessage(fake.user.id, 'Approve?', {
    reply_markup: {
      inline_keyboard: [
        [
          { text: 'Yes', callback_data: 'ok:1' },
          { text: 'No', callback_data: 'no:1' },
        ],
      ],
    },
  });
  messageId = sent.message_id;
});
afterEach(async () => {
  await fake.close();
});

const TOO_OLD = 'Bad Request: query is too old and response timeout expired or query ID is invalid';

describe('callback queries', () => {
  it('a press becomes a callback_query update carrying the message and data', async () => {
    const { callbackQueryId } = fake.userPresses(messageId, 'no:1');
    const [update] = (await callRaw(fake, 'getUpdates', {})).body.result as Array<{ callback_query: Record<string, unknown> }>;
    expect(update?.callback_query).toMatchObject({
      id: callbackQueryId,
      data: 'no:1',
      from: { id: fake.user.id, is_bot: false },
      message: { message_id: messageId, text: 'Approve?' },
    });
    expect(callbackQueryId).toMatch(/^\d{10,19}$/);
  });

  it('only buttons on the message can be pressed, unless forced to simulate tampered data', () => {
    expect(() => fake.userPresses(messageId, 'ok:2')).toThrow(/no button/);
    expect(() => fake.userPresses(messageId + 5, 'ok:1')).toThrow(/no message/);
    expect(fake.userPresses(messageId, 'ok:2', { force: true }).update.callback_query?.data).toBe('ok:2');
  });

  it('answers once; a second answer, an unknown id or an expired query gets the same 400', async () => {
    const { callbackQueryId: first } = fake.userPresses(messageId, 'ok:1');
    expect(await api.answerCallbackQuery(first, { text: 'Approved', show_alert: true })).toBe(true);
    const again = await callRaw(fake, 'answerCallbackQuery', { callback_query_id: first });
    expect([again.status, again.body.description]).toEqual([400, TOO_OLD]);
    const unknown = await callRaw(fake, 'answerCallbackQuery', { callback_query_id: '123' });
    expect(unknown.body.description).toBe(TOO_OLD);
    const { callbackQueryId: late } = fake.userPresses(messageId, 'no:1');
    fake.advanceClock(16_000);
    expect((await callRaw(fake, 'answerCallbackQuery', { callback_query_id: late })).body.description).toBe(TOO_OLD);
    expect(fake.callbackAnswers()).toMatchObject([{ callbackQueryId: first, text: 'Approved', showAlert: true }]);
  });
});
