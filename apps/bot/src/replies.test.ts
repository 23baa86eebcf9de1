import { describe, expect, it } from 'vitest';
import { createLogger } from '@bria/core/log';
import type { Db } from '@bria/core/services';
import { countOutbox, findChatRow, firstOutboxRow, outboxRows, seedChat } from '@bria/testkit/bot-fixtures';
import { createBot } from './bot.ts';
import { coreActions } from './core-actions.ts';
import { type Harness, scratchAttachmentsDir, seedNode, seedSession, useBotHarness } from '../test-support/bot-harness.ts';

// Handler replies go through the durable outbox (README "Handler replies"): a 429 or 5xx on the
// first attempt delays a reply but never loses it, and a redelivered update never answers twice.
let db: Db;
let h: Harness;
const ADA = 100200300;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const botTexts = () =>
  h.fake
    .chatMessages(ADA)
    .filter((m) => m.from?.is_bot)
    .map((m) => m.text ?? '');

useBotHarness({ allowed: [ADA] }, (x) => {
  ({ db, h } = x);
});

async function twoOpenSessions(): Promise<void> {
  const nodeId = await seedNode(db, { name: 'laptop' });
  await seedSession(db, { nodeId, state: 'Ready' });
  await seedSession(db, { nodeId, state: 'Running' });
}

describe('handler replies through the outbox', () => {
  it('a 429 (retry_after 1) on the first sendMessage of a /sessions reply: the list arrives once, after the wait', async () => {
    await twoOpenSessions();
    h.fake.failNext('sendMessage', { code: 429, retryAfter: 1 });
    h.fake.userSends('/sessions');
    await h.fake.waitForChat((ms) => ms.some((m) => m.from?.is_bot && m.text?.startsWith('Open sessions')), { chatId: ADA, timeoutMs: 10_000 });
    await pause(600);
    expect(botTexts().filter((t) => t.startsWith('Open sessions'))).toHaveLength(1);
    const calls = h.fake.calls('sendMessage');
    expect(calls.map((c) => c.status)).toEqual([429, 200]);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
    const rows = await outboxRows(db, { kind: 'reply' });
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([['sent', 2]]);
    expect(rows[0]?.externalId).toBe(String(h.fake.chatMessages(ADA).filter((m) => m.from?.is_bot)[0]?.message_id));
  });

  it('a 502 from the front proxy on the first sendMessage of a /status reply: it still arrives exactly once', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, active: { nodeId, sessionId: sid } });
    h.fake.failNext('sendMessage', { code: 502, html: true });
    h.fake.userSends('/status');
    await h.fake.waitForChat((ms) => ms.some((m) => m.from?.is_bot && m.text?.includes('State: ready')), { chatId: ADA, timeoutMs: 10_000 });
    await pause(600);
    expect(botTexts()).toHaveLength(1);
    expect(h.fake.calls('sendMessage').map((c) => c.status)).toEqual([502, 200]);
  });

  it('the same update handled again (a restart before the offset was confirmed) gets one reply, not two', async () => {
    await twoOpenSessions();
    const sent = h.fake.userSends('/sessions');
    await h.fake.waitForChat((ms) => ms.some((m) => m.from?.is_bot && m.text?.startsWith('Open sessions')), { chatId: ADA });
    // A second bot process receives the very same update twice more, as Telegram redelivers it.
    const log = createLogger({ name: 'bot-test-2', level: 'silent' });
    const actions = coreActions({ db, log, publicUrl: 'http://127.0.0.1:3999', attachmentsDir: scratchAttachmentsDir() });
    const again = createBot(h.fake.token, { db, log, allowedUsers: new Set([ADA]), apiRoot: h.fake.apiRoot, actions }, { client: { apiRoot: h.fake.apiRoot } });
    await again.init();
    await again.handleUpdate(structuredClone(sent.update));
    await again.handleUpdate(structuredClone(sent.update));
    await pause(800);
    expect(botTexts().filter((t) => t.startsWith('Open sessions'))).toHaveLength(1);
    expect(h.fake.calls('sendMessage')).toHaveLength(1);
    expect(await countOutbox(db, { kind: 'reply' })).toBe(1);
  });

  it('/start after a crash mid-handler: the intro and the card each arrive once when the update comes again', async () => {
    const nodeId = await seedNode(db, { name: 'laptop' });
    const sid = await seedSession(db, { nodeId, state: 'Ready' });
    await seedChat(db, { chatId: ADA, active: { nodeId, sessionId: sid } });
    const sent = h.fake.userSends('/start');
    await h.fake.waitForChat((ms) => ms.some((m) => m.text?.startsWith('Claude Code · laptop')), { chatId: ADA });
    const log = createLogger({ name: 'bot-test-2', level: 'silent' });
    const actions = coreActions({ db, log, publicUrl: 'http://127.0.0.1:3999', attachmentsDir: scratchAttachmentsDir() });
    const again = createBot(h.fake.token, { db, log, allowedUsers: new Set([ADA]), apiRoot: h.fake.apiRoot, actions }, { client: { apiRoot: h.fake.apiRoot } });
    await again.init();
    await again.handleUpdate(structuredClone(sent.update));
    await pause(800);
    const texts = botTexts();
    expect(texts.filter((t) => t.startsWith('Bria runs your Claude Code'))).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith('Claude Code · laptop'))).toHaveLength(1);
    const card = await firstOutboxRow(db, { kind: 'card' });
    const chat = await findChatRow(db, ADA);
    // The card's message id, kept for later edits, is the one the outbox row recorded when it was sent.
    expect(card?.externalId).toBe(String(chat?.cardMessageId));
  });
});
