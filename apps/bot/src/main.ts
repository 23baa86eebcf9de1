import { createServer } from 'node:http';
import { Api, webhookCallback } from 'grammy';
import { ConfigError } from '@bria/core/env';
import { catalogs } from '@bria/core/i18n';
import { createLogger } from '@bria/core/log';
import { closeDb, createDb } from '@bria/core/services';
import { COMMANDS, createBot } from './bot.ts';
import { coreActions } from './core-actions.ts';
import { type BotConfig, loadBotConfig } from './env.ts';
import { OutboxSender } from './outbox/outbox-sender.ts';
import { OutboxWake } from './outbox/outbox-wake.ts';
import { ProgressTicker } from './card/progress-ticker.ts';

// The Telegram bot process: long polling by default, webhook mode when TELEGRAM_WEBHOOK_URL is set.
let cfg: BotConfig;
try {
  cfg = loadBotConfig();
} catch (err) {
  console.error(`bria bot: ${err instanceof ConfigError ? err.message : String(err)}`);
  process.exit(2);
}
const log = createLogger({ name: 'bot', level: cfg.logLevel });
const db = createDb(cfg.databaseUrl, { max: 4 });
const outboxApi = new Api(cfg.token, { apiRoot: cfg.apiRoot, timeoutSeconds: Math.max(1, Math.floor(cfg.outboxLeaseMs / 2000)) });
const sender = new OutboxSender({ api: outboxApi, db, log: log.child({ part: 'outbox' }), leaseMs: cfg.outboxLeaseMs });
// Progress edits of the card use their own Api client, so they never wait behind the outbox's requests.
const progress = new ProgressTicker({ api: new Api(cfg.token, { apiRoot: cfg.apiRoot, timeoutSeconds: 20 }), db, databaseUrl: cfg.databaseUrl, log: log.child({ part: 'progress' }) });
const wake = new OutboxWake({ databaseUrl: cfg.databaseUrl, log: log.child({ part: 'outbox' }), onWake: () => sender.wake() });
const bot = createBot(
  cfg.token,
  { db, log, allowedUsers: cfg.allowedUsers, apiRoot: cfg.apiRoot, actions: coreActions({ db, log, publicUrl: cfg.publicUrl, attachmentsDir: cfg.attachmentsDir }), wakeOutbox: () => sender.wake() },
  { client: { apiRoot: cfg.apiRoot } },
);

const describe = (lang: 'en' | 'ru') => COMMANDS.map((command) => ({ command, description: catalogs[lang][`cmd.${command}`] }));
let webhookServer: ReturnType<typeof createServer> | undefined;

async function start(): Promise<void> {
  await bot.init();
  await bot.api.setMyCommands(describe('en')).catch((e: unknown) => log.warn({ err: String(e) }, 'setMyCommands failed'));
  await bot.api.setMyCommands(describe('ru'), { language_code: 'ru' }).catch(() => undefined);
  sender.start();
  await wake.start();
  await progress.start();
  if (cfg.webhook) {
    const wh = cfg.webhook;
    webhookServer = createServer(webhookCallback(bot, 'http', { secretToken: wh.secret }));
    await new Promise<void>((resolve) => webhookServer?.listen(wh.port, wh.host, resolve));
    await bot.api.setWebhook(wh.url, { secret_token: wh.secret });
    log.info({ port: wh.port }, 'Telegram bot running (webhook)');
  } else {
    void bot.start({ onStart: (me) => log.info({ username: me.username }, 'Telegram bot running (long polling)') });
  }
}

let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Finish the outbox request in flight (and record it) before leaving: an orderly stop never duplicates.
  await Promise.allSettled([bot.isRunning() ? bot.stop() : Promise.resolve(), sender.stop(), wake.stop(), progress.stop()]);
  await new Promise<void>((resolve) => (webhookServer ? webhookServer.close(() => resolve()) : resolve()));
  await closeDb(db).catch(() => undefined);
  process.exit(code);
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => void stop(0));

start().catch((err: unknown) => {
  log.fatal({ err: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }, 'bot failed to start');
  void stop(1);
});
