import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Update } from '@grammyjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { BotProcess } from './bot-process.ts';

// Webhook mode of the bot process: it registers its URL with the secret token, serves updates that
// carry that token and refuses the ones that do not (forged updates never act).
const SECRET = 'bria_webhook_secret_0123456789';
let tdb: TestDatabase;
let fake: FakeTelegram;
let bot: BotProcess;
let dir: string;
let port = 0;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const p = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return p;
}

let nextUpdate = 900_000_001;
function commandUpdate(text: string): Update {
  const u = fake.user;
  return {
    update_id: nextUpdate++,
    message: {
      message_id: nextUpdate,
      date: Math.floor(Date.now() / 1000),
      text,
      chat: { id: u.id, type: 'private', first_name: u.firstName ?? 'Ada' },
      from: { id: u.id, is_bot: false, first_name: u.firstName ?? 'Ada', language_code: 'en' },
      entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]?.length ?? 0 }],
    },
  } as Update;
}

const post = (update: Update, secret?: string) =>
  fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    body: JSON.stringify(update),
    headers: { 'content-type': 'application/json', ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}) },
  });

beforeAll(async () => {
  tdb = await createTestDatabase();
  fake = await startFakeTelegram();
  dir = mkdtempSync(path.join(tmpdir(), 'bria-tg-webhook-'));
  port = await freePort();
  bot = new BotProcess({
    databaseUrl: tdb.url,
    apiRoot: fake.apiRoot,
    token: fake.token,
    allowedUsers: [fake.user.id],
    dataDir: dir,
    logFile: path.join(dir, 'bot.log'),
    webhook: { url: 'https://bria.example.org/telegram', secret: SECRET, port },
  });
  await bot.start();
});
afterAll(async () => {
  await bot?.stop();
  await fake?.close();
  await tdb?.drop().catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('webhook mode', () => {
  it('registers its URL with the secret token and never long-polls', async () => {
    const call = await fake.waitForCall('setWebhook', () => true, 10_000);
    expect(call.params.url).toBe('https://bria.example.org/telegram');
    expect(call.params.secret_token).toBe(SECRET);
    expect(fake.calls('getUpdates')).toHaveLength(0);
  });

  it('an update without the secret header, or with a wrong one, is refused and does nothing', async () => {
    const before = fake.calls('sendMessage').length;
    const none = await post(commandUpdate('/start'));
    const wrong = await post(commandUpdate('/start'), `${SECRET}x`);
    expect(none.status).toBe(401);
    expect(wrong.status).toBe(401);
    await new Promise((r) => setTimeout(r, 1500));
    expect(fake.calls('sendMessage')).toHaveLength(before);
    expect(await countChats()).toBe(0);
  });

  it('an update with the secret is served; /login sends its link with the link preview off', async () => {
    const ok = await post(commandUpdate('/start'), SECRET);
    expect(ok.status).toBe(200);
    await fake.waitForChat((ms) => ms.some((m) => m.text?.startsWith('Bria runs your Claude Code') ?? false), { timeoutMs: 10_000 });
    const login = await post(commandUpdate('/login'), SECRET);
    expect(login.status).toBe(200);
    const sent = await fake.waitForCall('sendMessage', (c) => String(c.params.text ?? '').includes('one-time dashboard link'), 10_000);
    expect(sent.params.link_preview_options).toEqual({ is_disabled: true });
    expect(String(sent.params.text)).toMatch(/https?:\/\/\S+/);
    expect(await countChats()).toBe(1);
  });
});

async function countChats(): Promise<number> {
  const pg = await import('pg');
  const c = new pg.default.Client({ connectionString: tdb.url });
  await c.connect();
  try {
    return Number((await c.query('select count(*)::int as n from "TelegramChat"')).rows[0].n);
  } finally {
    await c.end();
  }
}
