import { Api } from 'grammy';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '@bria/core/log';
import { closeDb, createDb, type Db } from '@bria/core/services';
import { emptyOutboxAndChats, outboxRow, seedChat, seedOutboxRow, withFailingOutboxUpdates } from '@bria/testkit/bot-fixtures';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { visibleText } from '../render/index.ts';
import { OutboxSender } from './outbox-sender.ts';

let testDatabase: TestDatabase;
let db: Db;
let fake: FakeTelegram;
let sender: OutboxSender | undefined;
const SESSION = '11111111-1111-4111-8111-111111111111';
const NODE = '22222222-2222-4222-8222-222222222222';
const log = createLogger({ name: 'bot-test', level: 'silent' });

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  db = createDb(testDatabase.url, { max: 4 });
});
afterAll(async () => {
  await closeDb(db);
  await testDatabase.drop();
});
beforeEach(async () => {
  fake = await startFakeTelegram();
  await emptyOutboxAndChats(db);
  await seedChat(db, { chatId: fake.user.id });
});
afterEach(async () => {
  await sender?.stop();
  sender = undefined;
  await fake.close();
});

let seq = 0;
async function enqueueFinal(text: string): Promise<bigint> {
  const row = await seedOutboxRow(db, {
    channel: 'telegram',
    dedupeKey: `final:${++seq}`,
    kind: 'final',
    chatId: BigInt(fake.user.id),
    sessionId: SESSION,
    payload: { kind: 'final', sessionId: SESSION, nodeId: NODE, messageId: SESSION, text, active: true },
  });
  return row.id;
}

function startSender() {
  sender = new OutboxSender({ api: new Api(fake.token, { apiRoot: fake.apiRoot, timeoutSeconds: 5 }), db, log, pollMs: 50, leaseMs: 8_000 });
  sender.start();
  return sender;
}

describe('outbox sender', () => {
  it('delivers a long Markdown-heavy final once, split in order, every part accepted, ids recorded', async () => {
    const md = `# Report\n\n${Array.from({ length: 300 }, (_, i) => `- **item ${i}**: \`value_${i}\` <ok> & [link](https://e.x/${i})`).join('\n')}\n\n\`\`\`ts\n${'const a = b < c;\n'.repeat(300)}\`\`\``;
    const id = await enqueueFinal(md);
    startSender();
    await expect.poll(async () => (await outboxRow(db, id)).status, { timeout: 10_000 }).toBe('sent');
    const row = await outboxRow(db, id);
    const messages = fake.chatMessages();
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(row.externalId).toBe(messages.map((m) => m.message_id).join(','));
    expect(fake.calls('sendMessage').every((c) => c.status === 200)).toBe(true);
    expect(messages[0]?.text?.startsWith('Report')).toBe(true);
    expect(messages.at(-1)?.text?.endsWith('const a = b < c;')).toBe(true);
    expect(messages.every((m) => (m.text?.length ?? 0) <= 4096)).toBe(true);
    // Still exactly once a while later.
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.chatMessages().length).toBe(messages.length);
  });

  it('waits the retry_after Telegram asks for after a 429, then sends once', async () => {
    fake.failNext('sendMessage', { code: 429, retryAfter: 2 });
    await enqueueFinal('first');
    await enqueueFinal('second');
    startSender();
    await fake.waitForChat((ms) => ms.length === 2, { timeoutMs: 10_000 });
    const calls = fake.calls('sendMessage');
    expect(calls.map((c) => c.status)).toEqual([429, 200, 200]);
    const gap = (calls[1]?.at ?? 0) - (calls[0]?.at ?? 0);
    expect(gap).toBeGreaterThanOrEqual(2_000);
    expect(gap).toBeLessThan(4_000);
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['first', 'second']);
  });

  it('backs off on 5xx and timeouts and still delivers each row once, in order', async () => {
    fake.failNext('sendMessage', { code: 502 });
    fake.failNext('sendMessage', { code: 500 });
    await enqueueFinal('one');
    await enqueueFinal('two');
    startSender();
    await fake.waitForChat((ms) => ms.length === 2, { timeoutMs: 15_000 });
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['one', 'two']);
    const calls = fake.calls('sendMessage');
    expect(calls.map((c) => c.status)).toEqual([502, 500, 200, 200]);
    expect((calls[2]?.at ?? 0) - (calls[1]?.at ?? 0)).toBeGreaterThanOrEqual(1_500);
  });

  it('a request that never reached Telegram (held, then cut) is sent again exactly once', async () => {
    fake.failNext('sendMessage', { timeoutMs: 300 });
    await enqueueFinal('held');
    startSender();
    await fake.waitForChat((ms) => ms.length === 1, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['held']);
  });

  it('a failed bookkeeping write (Postgres restarting) does not stop the sender: later rows are still sent (chaos seed 479)', async () => {
    // The first two outbox updates fail as they would while Postgres restarts: the mark after the
    // send and the retry mark in the error path. Before the fix that second error ended the loop.
    const { db: flaky, left: failures } = withFailingOutboxUpdates(db, 2);
    await enqueueFinal('first');
    sender = new OutboxSender({ api: new Api(fake.token, { apiRoot: fake.apiRoot, timeoutSeconds: 5 }), db: flaky, log, pollMs: 50, leaseMs: 1_000 });
    sender.start();
    await fake.waitForChat((ms) => ms.length >= 1, { timeoutMs: 10_000 });
    await enqueueFinal('second');
    sender.wake();
    await fake.waitForChat((ms) => ms.some((m) => m.text === 'second'), { timeoutMs: 10_000 });
    expect(failures()).toBe(0);
    // 'first' reached Telegram before its mark failed: it is recorded on its next claim, never sent
    // again (chaos seed 140003), and the loop lives on.
    await expect.poll(async () => (await db.outbox.findFirstOrThrow({ where: { dedupeKey: `final:${seq - 1}` } })).status, { timeout: 10_000 }).toBe('sent');
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['first', 'second']);
    expect(fake.calls('sendMessage')).toHaveLength(2);
  });

  it('the documented window: an answer lost after Telegram acted is retried — the text is never lost, at most one extra copy', async () => {
    fake.failNext('sendMessage', { drop: true, afterExecute: true });
    await enqueueFinal('lost answer');
    startSender();
    await fake.waitForChat((ms) => ms.length >= 2, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['lost answer', 'lost answer']);
  });

  it("a final Telegram refuses as malformed markup (400 can't parse entities) arrives once, as plain text", async () => {
    const refusal = 'Bad Request: can\'t parse entities: Can\'t find end tag corresponding to start tag "b" at byte offset 0';
    fake.failNext('sendMessage', { code: 400, description: refusal });
    const id = await enqueueFinal('**bold** words & <angle> `code`');
    await enqueueFinal('the next one');
    startSender();
    await fake.waitForChat((ms) => ms.length === 2, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['bold words & <angle> code', 'the next one']);
    // The refused call, its plain retry (no parse_mode), then the next row: nothing sent twice.
    const calls = fake.calls('sendMessage');
    expect(calls.map((c) => c.status)).toEqual([400, 200, 200]);
    expect(calls[0]?.params.parse_mode).toBe('HTML');
    expect(calls[1]?.params.parse_mode).toBeUndefined();
    expect(fake.chatMessages()[0]?.entities ?? []).toEqual([]);
    const row = await outboxRow(db, id);
    expect([row.status, row.externalId]).toEqual(['sent', String(fake.chatMessages()[0]?.message_id)]);
  });

  it('a payload the bot cannot render is marked failed, not retried forever', async () => {
    const row = await seedOutboxRow(db, { channel: 'telegram', dedupeKey: 'bad', kind: 'weird', chatId: BigInt(fake.user.id), payload: { kind: 'weird' } });
    await enqueueFinal('after the bad one');
    startSender();
    await fake.waitForChat((ms) => ms.length === 1, { timeoutMs: 5_000 });
    expect((await outboxRow(db, row.id)).status).toBe('failed');
    expect(visibleText(fake.chatMessages()[0]?.text ?? '')).toBe('after the bad one');
  });
});
