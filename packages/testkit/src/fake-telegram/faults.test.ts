import { Api, GrammyError, HttpError } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from './index.ts';

let fake: FakeTelegram;
let api: Api;
beforeEach(async () => {
  fake = await startFakeTelegram();
  api = new Api(fake.token, { apiRoot: fake.apiRoot });
});
afterEach(async () => {
  await fake.close();
});

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );

describe('fault injection', () => {
  it('429 carries retry_after into GrammyError.parameters, for the next N calls only', async () => {
    fake.failNext('sendMessage', { code: 429, retryAfter: 2 }, 2);
    for (let i = 0; i < 2; i++) {
      const error = await failure(api.sendMessage(fake.user.id, 'flood'));
      expect(error).toBeInstanceOf(GrammyError);
      expect((error as GrammyError).error_code).toBe(429);
      expect((error as GrammyError).description).toBe('Too Many Requests: retry after 2');
      expect((error as GrammyError).parameters.retry_after).toBe(2);
    }
    expect((await api.sendMessage(fake.user.id, 'through')).text).toBe('through');
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['through']);
    const records = fake.calls('sendMessage');
    expect(records.map((r) => r.status)).toEqual([429, 429, 200]);
    expect(records[0]?.fault).toEqual({ code: 429, retryAfter: 2 });
  });

  it('500 and 502 answer as JSON; an HTML 502 from the proxy reaches grammY as an HttpError', async () => {
    fake.failNext('*', { code: 500 });
    fake.failNext('getMe', { code: 502 });
    fake.failNext('getMe', { code: 502, html: true });
    const e500 = (await failure(api.getMe())) as GrammyError;
    expect([e500.error_code, e500.description]).toEqual([500, 'Internal Server Error']);
    const e502 = (await failure(api.getMe())) as GrammyError;
    expect([e502.error_code, e502.description]).toEqual([502, 'Bad Gateway']);
    expect(await failure(api.getMe())).toBeInstanceOf(HttpError);
    expect((await api.getMe()).id).toBe(fake.me.id);
  });

  it('drop cuts the connection before the method runs; afterExecute loses only the answer', async () => {
    fake.failNext('sendMessage', { drop: true });
    expect(await failure(api.sendMessage(fake.user.id, 'lost request'))).toBeInstanceOf(HttpError);
    expect(fake.chatMessages()).toEqual([]);
    fake.failNext('sendMessage', { drop: true, afterExecute: true });
    expect(await failure(api.sendMessage(fake.user.id, 'lost answer'))).toBeInstanceOf(HttpError);
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['lost answer']);
    expect(fake.calls('sendMessage').map((r) => r.outcome)).toEqual(['dropped', 'dropped']);
  });

  it('timeoutMs holds the request and then closes it unanswered; the client gives up on its own clock', async () => {
    fake.failNext('sendChatAction', { timeoutMs: 400 });
    const started = performance.now();
    expect(await failure(api.sendChatAction(fake.user.id, 'typing'))).toBeInstanceOf(HttpError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(380);
    expect(fake.lastChatAction()).toBeUndefined();

    const impatient = new Api(fake.token, { apiRoot: fake.apiRoot, timeoutSeconds: 1 });
    fake.failNext('getMe', { timeoutMs: 5_000 });
    const t0 = performance.now();
    expect(await failure(impatient.getMe())).toBeInstanceOf(HttpError);
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(3_000);
    await expect.poll(() => fake.calls('getMe')[0]?.outcome, { timeout: 2_000 }).toBe('timeout');
  });

  it('global latency delays every call', async () => {
    fake.latencyMs = 300;
    const t0 = performance.now();
    await api.getMe();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    fake.latencyMs = 0;
    const t1 = performance.now();
    await api.getMe();
    expect(performance.now() - t1).toBeLessThan(280);
  });

  it('opt-in flood control answers 429 per chat until the window frees up', async () => {
    fake.floodLimit = { count: 3, windowMs: 1_500 };
    for (let i = 0; i < 3; i++) await api.sendMessage(fake.user.id, `burst ${i}`);
    const flooded = (await failure(api.sendMessage(fake.user.id, 'one too many'))) as GrammyError;
    expect(flooded.error_code).toBe(429);
    expect(flooded.parameters.retry_after).toBeGreaterThanOrEqual(1);
    expect(flooded.parameters.retry_after).toBeLessThanOrEqual(2);
    expect(fake.chatMessages()).toHaveLength(3);
    expect((await api.getMe()).is_bot).toBe(true);
    await new Promise((r) => setTimeout(r, 1_600));
    expect((await api.sendMessage(fake.user.id, 'after the wait')).text).toBe('after the wait');
  });
});
