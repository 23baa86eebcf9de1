import { Api } from 'grammy';
import type { TranscribeConfig } from '@bria/core/env';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createLogger } from '@bria/core/log';
import { closeDb, createDb, type Db } from '@bria/core/services';
import { emptyBotTables } from '@bria/testkit/bot-fixtures';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { createBot } from '../src/bot.ts';
import { coreActions } from '../src/core-actions.ts';
import { OutboxSender } from '../src/outbox/outbox-sender.ts';
import { scratchDir } from '@bria/testkit/scratch';

// The rows the tests seed: fixtures of what the hub, the engine or a node would have written.
export { answerFolderChecks, seedNode, seedSession } from '@bria/testkit/bot-fixtures';

/** A real bot (grammY long polling + outbox sender + core services) against the fake Bot API and a real database. */
export interface Harness {
  fake: FakeTelegram;
  db: Db;
  stop(): Promise<void>;
}

/**
 * The bot tests' set-up: one database for the file, emptied before each test, and a fresh bot
 * against a fresh fake Bot API for each test (stopped after it). `use` receives both every time.
 */
export function useBotHarness(o: HarnessOptions, use: (x: { db: Db; h: Harness }) => void): void {
  let testDatabase: TestDatabase;
  let db: Db;
  let h: Harness;
  beforeAll(async () => {
    ({ testDatabase, db } = await openDatabase());
  });
  afterAll(async () => {
    await closeDb(db);
    await testDatabase.drop();
  });
  beforeEach(async () => {
    await emptyBotTables(db);
    h = await startHarness(db, o);
    use({ db, h });
  });
  afterEach(() => h.stop());
}

export async function openDatabase(): Promise<{ testDatabase: TestDatabase; db: Db }> {
  const testDatabase = await createTestDatabase();
  return { testDatabase, db: createDb(testDatabase.url, { max: 6 }) };
}

/** A folder for the attachments a test's core actions store (removed when the test process ends). */
export const scratchAttachmentsDir = (): string => scratchDir('bria-bot-att-');

export interface HarnessOptions {
  allowed: number[];
  /** The speech-to-text service the bot is given (a test's fake); absent: none configured. */
  transcribe?: () => TranscribeConfig | undefined;
  /** The attachments folder (a fresh scratch folder when absent). */
  attachmentsDir?: string;
}

export async function startHarness(db: Db, o: HarnessOptions): Promise<Harness> {
  const fake = await startFakeTelegram();
  const log = createLogger({ name: 'bot-test', level: 'silent' });
  const sender = new OutboxSender({ api: new Api(fake.token, { apiRoot: fake.apiRoot, timeoutSeconds: 5 }), db, log, pollMs: 50, leaseMs: 10_000 });
  const actions = coreActions({ db, log, publicUrl: 'http://127.0.0.1:3999', attachmentsDir: o.attachmentsDir ?? scratchDir('bria-bot-att-') });
  const transcribe = o.transcribe?.();
  const bot = createBot(
    fake.token,
    { db, log, allowedUsers: new Set(o.allowed), apiRoot: fake.apiRoot, actions, wakeOutbox: () => sender.wake(), ...(transcribe ? { transcribe } : {}) },
    { client: { apiRoot: fake.apiRoot } },
  );
  await bot.init();
  // A stop that lands while grammY waits to retry a failed poll rejects start with "Aborted delay":
  // that is the stop, not a failure of the test (it surfaced as an unhandled rejection).
  const polling = bot.start({ timeout: 1 }).catch(() => undefined);
  sender.start();
  return {
    fake,
    db,
    async stop() {
      await Promise.allSettled([bot.stop(), sender.stop()]);
      // `bot.stop` does not wait for an update still being handled (grammY's own note): a handler
      // finishing after the next test emptied the tables wrote its chat row there (a busy run saw
      // that test's own seed refused as a duplicate). The polling promise ends once it is done.
      await polling;
      await fake.close();
    },
  };
}
