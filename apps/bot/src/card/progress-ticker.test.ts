import { Api } from 'grammy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@bria/core/log';
import { closeDb, type Db, ensureChat, setActiveSessionId } from '@bria/core/services';
import { emptyBotTables, seedNode, seedSession } from '@bria/testkit/bot-fixtures';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import type { TestDatabase } from '@bria/testkit/postgres';
import { openDatabase } from '../../test-support/bot-harness.ts';
import { showCard } from './card-service.ts';
import { PROGRESS_EDIT_GAP_MS, ProgressTicker } from './progress-ticker.ts';

/**
 * The card's live progress against the fake Bot API (real HTTP, per-chat flood control on) and a
 * real database: a burst of activity changes costs at most one card edit per 4 s, never a 429, the
 * card ends on the newest activity, and a background session's progress never touches the chat.
 */
let testDatabase: TestDatabase;
let db: Db;
let fake: FakeTelegram;
let ticker: ProgressTicker | undefined;
beforeAll(async () => {
  ({ testDatabase, db } = await openDatabase());
});
afterAll(async () => {
  await closeDb(db);
  await testDatabase.drop();
});
afterEach(async () => {
  await ticker?.stop();
  ticker = undefined;
  await fake?.close();
});

let CHAT = 0;
const T0 = Date.now();

async function setActivity(sessionId: string, i: number): Promise<void> {
  const activity = {
    kind: 'command',
    toolName: 'Bash',
    subject: `echo step-${i}`,
    status: 'running',
    added: null,
    removed: null,
    reads: 0,
    steps: i,
    nativeTurnId: 'turn-1',
    turnStartedAt: new Date(T0).toISOString(),
    at: new Date(T0 + i).toISOString(),
  };
  await db.session.update({ where: { id: sessionId }, data: { activity, activityAt: new Date() } });
}

describe('ProgressTicker', () => {
  it('200 quick activity changes: at most one card edit per 4 s, no 429, the card ends on the newest step', async () => {
    await emptyBotTables(db);
    // Telegram's per-chat limit as the fake applies it: 20 changes a minute (a real 429 past it).
    fake = await startFakeTelegram({ floodLimit: { count: 20, windowMs: 60_000 } });
    const api = new Api(fake.token, { apiRoot: fake.apiRoot, timeoutSeconds: 5 });
    // The user's private chat exists once they wrote to the bot.
    CHAT = fake.user.id;
    fake.userSends('hello');
    const nodeId = await seedNode(db);
    const shown = await seedSession(db, { nodeId, state: 'Running' });
    const background = await seedSession(db, { nodeId, state: 'Running' });
    await ensureChat(db, { chatId: BigInt(CHAT), userId: BigInt(CHAT), language: 'en' });
    await setActiveSessionId(db, BigInt(CHAT), nodeId, shown);
    const cardId = await showCard({ api, db, chatId: BigInt(CHAT), sessionId: shown });
    expect(cardId).toBeDefined();

    ticker = new ProgressTicker({ api, db, databaseUrl: testDatabase.url, log: createLogger({ name: 't', level: 'silent' }), pollMs: 500 });
    await ticker.start();
    for (let i = 1; i <= 200; i++) {
      await setActivity(shown, i);
      await setActivity(background, i);
    }
    await fake.waitForChat((ms) => ms.some((m) => m.message_id === cardId && (m.text ?? '').includes('echo step-200')), { chatId: CHAT, timeoutMs: 30_000 });

    const edits = fake.calls('editMessageText').filter((c) => Number(c.params.chat_id) === CHAT);
    expect(edits.length).toBeGreaterThanOrEqual(1);
    expect(edits.every((c) => c.status === 200)).toBe(true);
    expect(fake.calls().filter((c) => c.status === 429)).toEqual([]);
    // Every progress edit waits the gap after the card's previous edit (the first after the card was posted).
    const times = [fake.calls('sendMessage')[0]!.at, ...edits.map((c) => c.at)];
    for (let k = 1; k < times.length; k++) expect(times[k]! - times[k - 1]!).toBeGreaterThanOrEqual(PROGRESS_EDIT_GAP_MS);
    // Only the chat's card was ever edited: the background session got no message and no edit.
    expect(edits.every((c) => Number(c.params.message_id) === cardId)).toBe(true);
    expect(fake.calls('sendMessage')).toHaveLength(1);
    const card = fake.chatMessages(CHAT).find((m) => m.message_id === cardId);
    expect(card?.text).toContain('200 steps');
  }, 60_000);
});
