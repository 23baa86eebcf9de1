/**
 * The whole system for the Telegram benchmarks (e2e-latency, prompt-latency): the scenario system
 * (test database, hub and engine in this process, a real node agent process, the real CLIs against
 * the mock models), the fake Bot API, and the real bot (grammY long polling, the outbox sender with
 * production defaults, woken by NOTIFY bria_outbox as in apps/bot/src/main.ts) in this process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Api } from 'grammy';
import pino from 'pino';
import { createBot } from '../apps/bot/src/bot.ts';
import { coreActions } from '../apps/bot/src/core-actions.ts';
import { OutboxSender } from '../apps/bot/src/outbox/outbox-sender.ts';
import { OutboxWake } from '../apps/bot/src/outbox/outbox-wake.ts';
import { startFakeTelegram } from '../packages/testkit/src/fake-telegram/index.ts';
import { startSystem } from '../packages/testkit/src/system.ts';

/** Order statistics of latency samples (ms, one decimal). */
export function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n: s.length, min: r(s[0] ?? Number.NaN), median: r(at(50)), p90: r(at(90)), p99: r(at(99)), max: r(s.at(-1) ?? Number.NaN) };
}

export async function startTelegramBench() {
  const sys = await startSystem({ executors: ['claude', 'codex'] });
  const fake = await startFakeTelegram();
  const user = Number(sys.chatId);
  // A private chat: chat id = user id; the node is pre-selected as after /nodes.
  await sys.db.telegramChat.update({ where: { chatId: sys.chatId }, data: { userId: sys.chatId, selectedNodeId: sys.nodeId } });
  const log = pino({ level: 'silent' });
  const sender = new OutboxSender({ api: new Api(fake.token, { apiRoot: fake.apiRoot }), db: sys.db, log, leaseMs: 60_000 });
  const attachmentsDir = await mkdtemp(path.join(tmpdir(), 'bria-bench-att-'));
  const actions = coreActions({ db: sys.db, log, publicUrl: 'http://127.0.0.1:3999', attachmentsDir });
  const bot = createBot(
    fake.token,
    { db: sys.db, log, allowedUsers: new Set([user]), apiRoot: fake.apiRoot, actions, wakeOutbox: () => sender.wake() },
    { client: { apiRoot: fake.apiRoot } },
  );
  await bot.init();
  void bot.start();
  sender.start();
  // The engine's rows (finals, prompts) wake the sender through NOTIFY bria_outbox.
  const outboxWake = new OutboxWake({ databaseUrl: sys.databaseUrl, log, onWake: () => sender.wake() });
  await outboxWake.start();
  return {
    sys,
    fake,
    user,
    async stop(): Promise<void> {
      await Promise.allSettled([bot.stop(), sender.stop(), outboxWake.stop()]);
      await fake.close();
      await sys.dispose();
      await rm(attachmentsDir, { recursive: true, force: true });
    },
  };
}
