import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from './index.ts';
import { callRaw } from './test-support.ts';

type Upd = { update_id: number; message?: { text?: string }; callback_query?: unknown };

let fake: FakeTelegram;
beforeEach(async () => {
  fake = await startFakeTelegram();
});
afterEach(async () => {
  await fake.close();
});

const updatesOf = (a: { body: { result?: unknown } }) => a.body.result as Upd[];

describe('getUpdates long polling', () => {
  it('holds an idle poll for its timeout and answers [] at the end; timeout=0 answers at once', async () => {
    const idle = await callRaw(fake, 'getUpdates', { timeout: 1 });
    expect(idle.body).toEqual({ ok: true, result: [] });
    expect(idle.ms).toBeGreaterThanOrEqual(950);
    expect(idle.ms).toBeLessThan(2500);
    const quick = await callRaw(fake, 'getUpdates', { timeout: 0 });
    expect(quick.body.result).toEqual([]);
    expect(quick.ms).toBeLessThan(700);
  });

  it('answers a held poll as soon as the user writes', async () => {
    const poll = callRaw(fake, 'getUpdates', { timeout: 20 });
    await new Promise((r) => setTimeout(r, 300));
    fake.userSends('hello there');
    const answer = await poll;
    expect(answer.ms).toBeGreaterThanOrEqual(250);
    expect(answer.ms).toBeLessThan(1500);
    const [update] = updatesOf(answer);
    expect(update?.message).toMatchObject({ text: 'hello there', chat: { id: fake.user.id, type: 'private' }, from: { id: fake.user.id, is_bot: false } });
  });

  it('redelivers until confirmed by offset, then never again; honours limit and negative offset', async () => {
    for (const t of ['one', 'two', 'three']) fake.userSends(t);
    const first = updatesOf(await callRaw(fake, 'getUpdates', { limit: 2 }));
    expect(first.map((u) => u.message?.text)).toEqual(['one', 'two']);
    const again = updatesOf(await callRaw(fake, 'getUpdates', {}));
    expect(again.map((u) => u.message?.text)).toEqual(['one', 'two', 'three']);
    const last = again[2] as Upd;
    expect(last.update_id).toBe((first[0] as Upd).update_id + 2);
    const rest = updatesOf(await callRaw(fake, 'getUpdates', { offset: (first[1] as Upd).update_id + 1 }));
    expect(rest.map((u) => u.message?.text)).toEqual(['three']);
    const none = await callRaw(fake, 'getUpdates', { offset: last.update_id + 1, timeout: 0 });
    expect(none.body.result).toEqual([]);
    for (const t of ['a', 'b', 'c']) fake.userSends(t);
    const tail = updatesOf(await callRaw(fake, 'getUpdates', { offset: -1 }));
    expect(tail.map((u) => u.message?.text)).toEqual(['c']);
    expect(fake.pendingUpdates()).toBe(1);
  });

  it('a second concurrent getUpdates terminates the held one with 409 Conflict', async () => {
    const older = callRaw(fake, 'getUpdates', { timeout: 10 });
    await new Promise((r) => setTimeout(r, 200));
    const newer = callRaw(fake, 'getUpdates', { timeout: 10 });
    const conflict = await older;
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({
      ok: false,
      error_code: 409,
      description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
    });
    fake.userSends('for the newer one');
    expect(updatesOf(await newer).map((u) => u.message?.text)).toEqual(['for the newer one']);
  });

  it('filters by allowed_updates, which sticks when later calls omit it', async () => {
    const bot = await callRaw(fake, 'sendMessage', {
      chat_id: fake.user.id,
      text: 'pick',
      reply_markup: { inline_keyboard: [[{ text: 'A', callback_data: 'a' }]] },
    });
    const messageId = (bot.body.result as { message_id: number }).message_id;
    fake.userPresses(messageId, 'a');
    fake.userSends('text');
    const onlyMessages = updatesOf(await callRaw(fake, 'getUpdates', { allowed_updates: ['message'] }));
    expect(onlyMessages.map((u) => Object.keys(u)[1])).toEqual(['message']);
    fake.userPresses(messageId, 'a');
    const stillFiltered = await callRaw(fake, 'getUpdates', { offset: (onlyMessages[0] as Upd).update_id + 1, timeout: 0 });
    expect(stillFiltered.body.result).toEqual([]);
  });

  it('refuses getUpdates while a webhook is set, and deleteWebhook can drop pending updates', async () => {
    expect((await callRaw(fake, 'setWebhook', { url: 'http://insecure.example' })).body.description).toBe(
      'Bad Request: bad webhook: HTTPS url must be provided for webhook',
    );
    expect((await callRaw(fake, 'setWebhook', { url: 'https://bria.example/hook' })).body.result).toBe(true);
    fake.userSends('queued');
    const info = await callRaw(fake, 'getWebhookInfo');
    expect(info.body.result).toMatchObject({ url: 'https://bria.example/hook', pending_update_count: 1 });
    const refused = await callRaw(fake, 'getUpdates', {});
    expect(refused.status).toBe(409);
    expect(refused.body.description).toContain("can't use getUpdates method while webhook is active");
    await callRaw(fake, 'deleteWebhook', { drop_pending_updates: true });
    expect((await callRaw(fake, 'getUpdates', {})).body.result).toEqual([]);
  });
});

describe('HTTP surface', () => {
  it('401 for a wrong token, 404 for an unknown method, case-insensitive names, GET and form bodies', async () => {
    const wrong = await callRaw(fake, 'getMe', {}, '7000000001:wrong');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    const unknown = await callRaw(fake, 'getMee');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ ok: false, error_code: 404, description: 'Not Found' });
    expect((await callRaw(fake, 'GETME')).body.result).toMatchObject({ id: 7000000001, is_bot: true });
    expect((await fetch(`${fake.apiRoot}/bot%E0%A4%A/getMe`)).status).toBe(401);
    expect((await fetch(`${fake.apiRoot}/nothing/here`)).status).toBe(404);

    const get = await fetch(`${fake.apiRoot}/bot${fake.token}/sendMessage?chat_id=${fake.user.id}&text=${encodeURIComponent('via GET')}`);
    expect(((await get.json()) as { result: { text: string } }).result.text).toBe('via GET');
    const form = await fetch(`${fake.apiRoot}/bot${fake.token}/sendMessage`, {
      method: 'POST',
      body: new URLSearchParams({
        chat_id: String(fake.user.id),
        text: 'via form',
        reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'x', callback_data: 'x' }]] }),
      }),
    });
    const sent = ((await form.json()) as { result: { text: string; reply_markup: unknown } }).result;
    expect(sent).toMatchObject({ text: 'via form', reply_markup: { inline_keyboard: [[{ text: 'x', callback_data: 'x' }]] } });
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['via GET', 'via form']);
    expect(fake.calls('sendMessage').map((c) => c.params.text)).toEqual(['via GET', 'via form']);
    // Records show structured fields parsed, whatever the body encoding was.
    expect(fake.calls('sendMessage')[1]?.params.reply_markup).toEqual({ inline_keyboard: [[{ text: 'x', callback_data: 'x' }]] });
  });
});
