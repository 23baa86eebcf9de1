import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '@bria/core/db';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { startBot } from './bot-rig.ts';
import { capturedLogger, dbFingerprint, pause, until } from './support.ts';

/**
 * The owner's own buttons, tampered with: a forged generation, another session's id, garbage and
 * overlong data. None may act; the only writes allowed are the card being redrawn.
 */
let tdb: TestDatabase;
let db: Db;
let bot: Awaited<ReturnType<typeof startBot>>;
const logs = capturedLogger('bot');
const ADA = 100200300;
const NODE = '00000000-0000-4000-8000-00000000000b';
const CARD = '10000000-0000-4000-8000-00000000000b';
const OTHER = '10000000-0000-4000-8000-00000000000c';
const ARCHIVED = '10000000-0000-4000-8000-00000000000d';
const generation = async () => (await db.telegramChat.findUniqueOrThrow({ where: { chatId: BigInt(ADA) } })).cardGeneration;

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url, { max: 6 });
  await db.node.create({ data: { id: NODE, name: 'laptop', online: true, enabledExecutors: ['claude', 'codex'] } });
  const deadline = new Date(Date.now() + 3 * 3600_000);
  await db.session.create({
    data: { id: CARD, nodeId: NODE, executor: 'claude', folder: '/w/a', nativeSessionId: 'n-a', state: 'Running', lifetimeDeadline: deadline },
  });
  await db.session.create({
    data: { id: OTHER, nodeId: NODE, executor: 'claude', folder: '/w/b', nativeSessionId: 'n-b', state: 'Running', lifetimeDeadline: deadline },
  });
  await db.session.create({
    data: {
      id: ARCHIVED,
      nodeId: NODE,
      executor: 'claude',
      folder: '/w/c',
      nativeSessionId: 'n-c',
      state: 'Archived',
      archivedAt: new Date(),
      lifetimeDeadline: null,
    },
  });
  await db.telegramChat.create({ data: { chatId: BigInt(ADA), userId: BigInt(ADA), language: 'en', selectedNodeId: NODE } });
  await db.chatNodeState.create({ data: { chatId: BigInt(ADA), nodeId: NODE, activeSessionId: CARD } });
  bot = await startBot(db, { allowed: [ADA], log: logs.log });
  bot.fake.userSends('/start');
  await bot.fake.waitForChat((m) => m.some((x) => x.text?.startsWith('Claude Code · laptop')));
});
afterAll(async () => {
  await bot?.stop();
  await db?.$disconnect();
  await tdb?.drop();
});

/** Tables only a redrawn card may touch. */
const CARD_TABLES = ['TelegramChat', 'Outbox'];

async function press(data: string): Promise<{ text?: string }> {
  const card = bot.fake
    .chatMessages(ADA)
    .filter((m) => m.from?.is_bot)
    .at(-1)!;
  const { callbackQueryId } = bot.fake.userPresses(card.message_id, data, { force: true });
  const answer = await until(() => bot.fake.callbackAnswers().find((a) => a.callbackQueryId === callbackQueryId), 5_000, `answer to ${data.slice(0, 40)}`);
  await pause(300);
  return answer;
}

describe('tampered callback data', () => {
  const cases: [string, (gen: number) => string][] = [
    ['Stop with a forged (future) generation', (gen) => `stop:${gen + 1}`],
    ['Close with an old generation', (gen) => `closeYes:${gen - 1}:${CARD}`],
    ["Stop aimed at another session's id", (gen) => `stop:${gen}:${OTHER}`],
    ["Close aimed at another session's id", (gen) => `closeYes:${gen}:${OTHER}`],
    ['Resume of the archive with a forged generation', (gen) => `resume:${gen + 7}:${ARCHIVED}::a`],
    ['a session id that is not a uuid', (gen) => `stop:${gen}:'; drop table "Session"; --`],
    ['an open of an unknown session', (gen) => `open:${gen}:10000000-0000-4000-8000-0000000000ff`],
    ['a settings value outside the allowed ones', (gen) => `set:${gen}:::life=999`],
    ['an executor that does not exist', (gen) => `set:${gen}:::exec=rm`],
    ['an archive page that is not a number', (gen) => `arch:${gen}:::x`],
    ['overlong garbage', () => `stop:${'9'.repeat(500)}:${'x'.repeat(4000)}`],
    ['control characters', (gen) => `stop:${gen}:\u0000\u001b[2J\r\n`],
    ['an unknown action', (gen) => `rm:${gen}:${CARD}`],
  ];
  for (const [name, data] of cases) {
    it(`${name}: refused, no session, command, message or setting changes`, async () => {
      const before = await dbFingerprint(tdb.url, CARD_TABLES);
      const answer = await press(data(await generation()));
      expect(answer.text ?? '', name).toMatch(/out of date|no longer|not valid|^$/i);
      expect(await dbFingerprint(tdb.url, CARD_TABLES), name).toEqual(before);
    });
  }

  it('control: the untampered Stop of the card does act on the card session, and only on it', async () => {
    await press(`stop:${await generation()}`);
    const cmd = await until(() => db.agentCommand.findFirst({ where: { type: 'interrupt' } }), 5_000, 'interrupt command');
    expect(cmd.sessionId).toBe(CARD);
    expect((await db.sessionEvidence.findMany({ where: { event: 'stop_requested' } })).map((e) => e.sessionId)).toEqual([CARD]);
    expect((await db.session.findUniqueOrThrow({ where: { id: OTHER } })).state).toBe('Running');
  });
});
