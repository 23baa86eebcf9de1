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
const progress = new ProgressTicker({
  api: new Api(cfg.token, { apiRoot: cfg.apiRoot, timeoutSeconds: 20 }),
  db,
  databaseUrl: cfg.databaseUrl,
  log: log.child({ part: 'progress' }),
});
const wake = new OutboxWake({ databaseUrl: cfg.databaseUrl, log: log.child({ part: 'outbox' }), onWake: () => sender.wake() });
let stopping = false;
const bot = createBot(
  cfg.token,
  {
    db,
    log,
    accepting: () => !stopping || cfg.webhook !== undefined,
    allowedUsers: cfg.allowedUsers,
    apiRoot: cfg.apiRoot,
    actions: coreActions({ db, log, publicUrl: cfg.publicUrl, attachmentsDir: cfg.attachmentsDir }),
    ...(cfg.transcribe ? { transcribe: cfg.transcribe } : {}),
    wakeOutbox: () => sender.wake(),
  },
  { client: { apiRoot: cfg.apiRoot } },
);

const describe = (lang: 'en' | 'ru') => COMMANDS.map((command) => ({ command, description: catalogs[lang][`cmd.${command}`] }));
let webhookServer: ReturnType<typeof createServer> | undefined;
/** Settles when long polling has ended and the middleware of the last update it began has finished. */
let polling: Promise<void> | undefined;
/** How long a stop waits for the updates in hand (a file download, a write) before leaving anyway. */
const HANDLING_GRACE_MS = 20_000;

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
    polling = bot.start({ onStart: (me) => log.info({ username: me.username }, 'Telegram bot running (long polling)') }).catch((err: unknown) => {
      log.fatal({ err: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }, 'long polling failed');
      void stop(1);
    });
  }
}

async function stop(code: number): Promise<void> {
  if (stopping) return;
  // Set in the same tick as bot.stop() confirms the updates begun so far: under long polling any later
  // one is refused by the gate in createBot and stays with Telegram. (A webhook's updates in flight are
  // all handled: the server's close waits for them.)
  stopping = true;
  // The updates in hand finish before anything closes: grammY's stop() confirms them to Telegram at
  // once, so a message whose handler were cut short here (a file download, the write) would be lost.
  const pollingEnded = bot.isRunning()
    ? bot
        .stop()
        .catch(() => undefined)
        .then(() => polling)
    : Promise.resolve(polling);
  const webhookClosed = new Promise<void>((resolve) => (webhookServer ? webhookServer.close(() => resolve()) : resolve()));
  const handled = await Promise.race([
    Promise.allSettled([pollingEnded, webhookClosed]).then(() => true),
    new Promise<false>((resolve) => setTimeout(resolve, HANDLING_GRACE_MS, false).unref()),
  ]);
  if (!handled) log.warn({ graceMs: HANDLING_GRACE_MS }, 'an update was still being handled when the stop gave up waiting for it');
  // Finish the outbox request in flight (and record it) before leaving: an orderly stop never duplicates.
  await Promise.allSettled([sender.stop(), wake.stop(), progress.stop()]);
  await closeDb(db).catch(() => undefined);
  process.exit(code);
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => void stop(0));

start().catch((err: unknown) => {
  log.fatal({ err: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }, 'bot failed to start');
  void stop(1);
});
