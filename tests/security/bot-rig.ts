import type { Db } from '@bria/core/services';
import { Api } from 'grammy';
import type { Logger } from '@bria/core/log';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import { createBot } from '../../apps/bot/src/bot.ts';
import { coreActions } from '../../apps/bot/src/core-actions.ts';
import { OutboxSender } from '../../apps/bot/src/outbox/outbox-sender.ts';
import { scratchDir } from '../../packages/testkit/src/scratch.ts';

/** The real bot (long polling, outbox sender, core services) against the fake Bot API, logging to `log`. */
export async function startBot(
  db: Db,
  o: { allowed: number[]; log: Logger; token?: string },
): Promise<{ fake: FakeTelegram; attachmentsDir: string; stop(): Promise<void> }> {
  const fake = await startFakeTelegram(o.token ? { token: o.token } : {});
  const attachmentsDir = scratchDir('bria-sec-att-');
  const sender = new OutboxSender({ api: new Api(fake.token, { apiRoot: fake.apiRoot, timeoutSeconds: 5 }), db, log: o.log, pollMs: 50, leaseMs: 10_000 });
  const actions = coreActions({ db, log: o.log, publicUrl: 'http://127.0.0.1:3999', attachmentsDir });
  const bot = createBot(
    fake.token,
    { db, log: o.log, allowedUsers: new Set(o.allowed), apiRoot: fake.apiRoot, actions, wakeOutbox: () => sender.wake() },
    { client: { apiRoot: fake.apiRoot } },
  );
  await bot.init();
  // A stop during grammY's retry wait rejects start with "Aborted delay": the stop, not a failure.
  void bot.start({ timeout: 1 }).catch(() => undefined);
  sender.start();
  return {
    fake,
    attachmentsDir,
    async stop() {
      await Promise.allSettled([bot.stop(), sender.stop()]);
      await fake.close();
    },
  };
}

/** Bot API methods that only read or poll: anything else the bot calls is something it did. */
export const PASSIVE = new Set(['getUpdates', 'getMe', 'setMyCommands', 'deleteWebhook', 'getWebhookInfo']);
