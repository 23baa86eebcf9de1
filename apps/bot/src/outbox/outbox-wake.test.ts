import { Api } from 'grammy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@bria/core/log';
import { closeDb, createDb, type Db } from '@bria/core/services';
import { enqueueEngineRow, seedChat } from '@bria/testkit/bot-fixtures';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { OutboxSender } from './outbox-sender.ts';
import { OutboxWake } from './outbox-wake.ts';

const log = createLogger({ name: 'bot-test', level: 'silent' });
const SESSION = '11111111-1111-4111-8111-111111111111';
const NODE = '22222222-2222-4222-8222-222222222222';
let testDatabase: TestDatabase;
let db: Db;
let fake: FakeTelegram;

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  db = createDb(testDatabase.url, { max: 4 });
  fake = await startFakeTelegram();
  await seedChat(db, { chatId: fake.user.id });
});
afterAll(async () => {
  await fake.close();
  await closeDb(db);
  await testDatabase.drop();
});

describe('outbox wake-up', () => {
  it('sends a row the moment the engine enqueues it, without waiting for the poll', async () => {
    // A poll this slow would take a minute: only the NOTIFY can explain a prompt delivery.
    const sender = new OutboxSender({ api: new Api(fake.token, { apiRoot: fake.apiRoot, timeoutSeconds: 5 }), db, log, pollMs: 60_000, leaseMs: 8_000 });
    const wake = new OutboxWake({ databaseUrl: testDatabase.url, log, onWake: () => sender.wake() });
    sender.start();
    await wake.start();
    // Let the sender's first (empty) claim pass, so it is asleep in its long poll.
    await new Promise((r) => setTimeout(r, 500));
    await enqueueEngineRow(db, {
      dedupeKey: 'final:wake',
      chatId: fake.user.id,
      payload: { kind: 'final', sessionId: SESSION, nodeId: NODE, messageId: SESSION, text: 'woken', active: true },
    });
    await expect.poll(() => fake.chatMessages().length, { timeout: 10_000 }).toBe(1);
    expect(fake.chatMessages()[0]?.text).toContain('woken');
    await wake.stop();
    await sender.stop();
  });
});
