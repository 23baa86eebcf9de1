import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import type { TestDatabase } from '@bria/testkit/postgres';
import { renderFinal, visibleText } from './render/index.ts';
import { openDatabase } from '../test-support/bot-harness.ts';
import { scratchDir } from '@bria/testkit/scratch';
import { closeDb, type Db } from '@bria/core/services';
import { messageRows, outboxRows, seedActiveSession, seedChat, seedNode, seedOutboxRow, seedSession } from '@bria/testkit/bot-fixtures';
import { waitUntil } from '@bria/testkit/wait';

// The real bot process (`tsx apps/bot/src/main.ts`), killed with SIGKILL mid-send and started again.
const root = path.resolve(import.meta.dirname, '../../..');
let testDatabase: TestDatabase;
let db: Db;
let fake: FakeTelegram;
const SESSION = '11111111-1111-4111-8111-111111111111';
const NODE = '22222222-2222-4222-8222-222222222222';

beforeAll(async () => {
  ({ testDatabase, db } = await openDatabase());
  fake = await startFakeTelegram();
  await seedChat(db, { chatId: fake.user.id });
});
afterAll(async () => {
  await fake.close();
  await closeDb(db);
  await testDatabase.drop();
});

function startBot(): ChildProcess {
  // Node itself (tsx as a loader), so SIGKILL hits the bot and not a wrapper that would leave it running.
  return spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/bot/src/main.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_ROOT: fake.apiRoot,
      TELEGRAM_ALLOWED_USERS: String(fake.user.id),
      DATABASE_URL: testDatabase.url,
      BRIA_DATA_DIR: scratchDir('bria-bot-main-'),
      BRIA_BOT_OUTBOX_LEASE_MS: '3000',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
const exited = (p: ChildProcess) =>
  new Promise<number | null>((resolve) => (p.exitCode !== null || p.signalCode ? resolve(p.exitCode) : p.once('exit', (code) => resolve(code))));

async function enqueueFinal(key: string, text: string): Promise<void> {
  await seedOutboxRow(db, {
    channel: 'telegram',
    dedupeKey: key,
    kind: 'final',
    chatId: BigInt(fake.user.id),
    sessionId: SESSION,
    payload: { kind: 'final', sessionId: SESSION, nodeId: NODE, messageId: SESSION, text, active: true },
  });
}

describe('bot process', () => {
  it('killed mid-send and restarted delivers every outbox row and every part exactly once, in order', async () => {
    const long = Array.from({ length: 700 }, (_, i) => `line ${i} of a long **answer**`).join('\n');
    const longParts = renderFinal(long).map((p) => visibleText(p).trim());
    expect(longParts.length).toBeGreaterThanOrEqual(3);
    await enqueueFinal('f1', 'first');
    await enqueueFinal('f2', long);
    await enqueueFinal('f3', 'third');
    await enqueueFinal('f4', 'fourth');
    fake.latencyMs = 150;
    let bot = startBot();
    // After "first" and the long answer's first part, the next request is held (it never reaches the
    // server's handler) and the process is killed while it waits.
    await fake.waitForCall('sendMessage', () => fake.calls('sendMessage').filter((c) => c.status === 200).length === 2, 30_000);
    fake.failNext('sendMessage', { timeoutMs: 20_000 });
    await fake.waitForCall('sendMessage', (c) => c.fault !== undefined || fake.calls('sendMessage').length >= 3, 10_000);
    bot.kill('SIGKILL');
    await exited(bot);
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['first', longParts[0]]);

    bot = startBot();
    await fake.waitForChat((ms) => ms.length === 2 + longParts.length - 1 + 2, { timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(fake.chatMessages().map((m) => m.text)).toEqual(['first', ...longParts, 'third', 'fourth']);
    const rows = await outboxRows(db);
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(rows[1]?.externalId?.split(',')).toHaveLength(longParts.length);

    // The restarted process also serves users (long polling) …
    fake.latencyMs = 0;
    fake.userSends('/start');
    await fake.waitForChat((ms) => ms.some((m) => m.text?.startsWith('Bria runs')), { timeoutMs: 15_000 });
    // … and stops cleanly on SIGTERM.
    bot.kill('SIGTERM');
    expect(await exited(bot)).toBe(0);
  }, 120_000);

  it('SIGTERM while a message is being handled: it is stored before the process leaves; the one not begun stays with Telegram', async () => {
    const nodeId = await seedNode(db);
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedActiveSession(db, { chatId: fake.user.id, nodeId, sessionId: sid });
    // Two messages wait at Telegram, so one getUpdates hands over both; the file's download is held.
    let release = (): void => undefined;
    fake.failNext('file', { holdUntil: new Promise<void>((resolve) => (release = resolve)) });
    const doc = fake.userSendsDocument(new Uint8Array(Buffer.from('a,b\n1,2\n')), 'data.csv', 'text/csv', 'look at this file');
    const second = fake.userSends('and then this');
    const bot = startBot();
    await waitUntil('the download to reach Telegram', async () => fake.calls('file').length > 0);
    bot.kill('SIGTERM');
    // grammY confirms the update it began (and only that one) before the handler has finished.
    await fake.waitForCall('getUpdates', (c) => Number(c.params.offset) === doc.update.update_id + 1, 15_000);
    release();
    expect(await exited(bot)).toBe(0);
    // The handler ran to its end before the database closed: the message is in the session's queue.
    expect((await messageRows(db, { sessionId: sid })).map((m) => m.text)).toEqual(['look at this file']);

    // The second update was never begun, so it was not confirmed: the next start handles it, once.
    const again = startBot();
    await waitUntil('the second message to be stored', async () => (await messageRows(db, { sessionId: sid })).length >= 2);
    await fake.waitForCall('setMessageReaction', (c) => c.params.message_id === second.message.message_id, 15_000);
    const rows = await messageRows(db, { sessionId: sid });
    expect(rows.map((m) => m.text)).toEqual(['look at this file', 'and then this']);
    expect(rows.map((m) => m.sourceKey)).toEqual([`tg:${fake.user.id}:${doc.message.message_id}`, `tg:${fake.user.id}:${second.message.message_id}`]);
    again.kill('SIGTERM');
    expect(await exited(again)).toBe(0);
  }, 120_000);
});
