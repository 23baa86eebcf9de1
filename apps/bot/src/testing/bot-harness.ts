import { Api } from 'grammy';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createLogger } from '@bria/core/log';
import { createDb, type Db } from '@bria/core/services';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { createBot } from '../bot.ts';
import { coreActions } from '../core-actions.ts';
import { OutboxSender } from '../outbox/outbox-sender.ts';
import { scratchDir } from '@bria/testkit/scratch';

/** A real bot (grammY long polling + outbox sender + core services) against the fake Bot API and a real database. */
export interface Harness {
  fake: FakeTelegram;
  db: Db;
  stop(): Promise<void>;
}

/** Every table a bot test writes to, emptied before each test. */
const TABLES = ['Outbox', 'ChatNodeState', 'TelegramChat', 'Message', 'AgentCommand', 'SessionEvidence', 'SessionTimer', 'Session', 'Node', 'Settings', 'LoginToken', 'DashboardUser'];

/**
 * The bot tests' set-up: one database for the file, emptied before each test, and a fresh bot
 * against a fresh fake Bot API for each test (stopped after it). `use` receives both every time.
 */
export function useBotHarness(o: { allowed: number[] }, use: (x: { db: Db; h: Harness }) => void): void {
  let tdb: TestDatabase;
  let db: Db;
  let h: Harness;
  beforeAll(async () => {
    ({ tdb, db } = await openDatabase());
  });
  afterAll(async () => {
    await db.$disconnect();
    await tdb.drop();
  });
  beforeEach(async () => {
    await db.$executeRawUnsafe(`truncate ${TABLES.map((t) => `"${t}"`).join(', ')} cascade`);
    h = await startHarness(db, o);
    use({ db, h });
  });
  afterEach(() => h.stop());
}

export async function openDatabase(): Promise<{ tdb: TestDatabase; db: Db }> {
  const tdb = await createTestDatabase();
  return { tdb, db: createDb(tdb.url, { max: 6 }) };
}

/** A folder for the attachments a test's core actions store (removed when the test process ends). */
export const scratchAttachmentsDir = (): string => scratchDir('bria-bot-att-');

export async function startHarness(db: Db, o: { allowed: number[] }): Promise<Harness> {
  const fake = await startFakeTelegram();
  const log = createLogger({ name: 'bot-test', level: 'silent' });
  const sender = new OutboxSender({ api: new Api(fake.token, { apiRoot: fake.apiRoot, timeoutSeconds: 5 }), db, log, pollMs: 50, leaseMs: 10_000 });
  const actions = coreActions({ db, log, publicUrl: 'http://127.0.0.1:3999', attachmentsDir: scratchDir('bria-bot-att-') });
  const bot = createBot(fake.token, { db, log, allowedUsers: new Set(o.allowed), apiRoot: fake.apiRoot, actions, wakeOutbox: () => sender.wake() }, { client: { apiRoot: fake.apiRoot } });
  await bot.init();
  void bot.start({ timeout: 1 });
  sender.start();
  return {
    fake, db,
    async stop() {
      await Promise.allSettled([bot.stop(), sender.stop()]);
      await fake.close();
    },
  };
}

let n = 0;
export async function seedNode(db: Db, o: { name?: string; online?: boolean; executors?: ('claude' | 'codex')[] } = {}): Promise<string> {
  const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  await db.node.create({ data: { id, name: o.name ?? `node-${n}`, online: o.online ?? true, enabledExecutors: o.executors ?? ['claude', 'codex'] } });
  return id;
}

/** A session row as the engine would have left it (state fixtures; no engine runs in these tests). */
export async function seedSession(db: Db, o: { nodeId: string; state: 'Ready' | 'Running' | 'Closing' | 'Archived'; deadline?: Date | null; title?: string }): Promise<string> {
  const id = `10000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  await db.session.create({
    data: {
      id, nodeId: o.nodeId, executor: 'claude', folder: '/home/ada/project', nativeSessionId: `native-${n}`, state: o.state,
      lifetimeDeadline: o.deadline === undefined ? new Date(Date.now() + 3 * 3600_000) : o.deadline, title: o.title ?? null,
      ...(o.state === 'Archived' ? { archivedAt: new Date() } : {}),
    },
  });
  return id;
}

/**
 * The node's answer to folder checks, stored the way the hub stores an agent's `command_result`
 * (no agent runs in these tests, as no engine does: a fixture of what the node would have said).
 * Returns a function that stops answering.
 */
export function answerFolderChecks(db: Db, nodeId: string, check: (folder: string) => { ok: true; folder: string } | { ok: false; reason: string } = (folder) => ({ ok: true, folder })): () => void {
  let seq = 1_000_000 + n * 1000;
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const cmds = await db.agentCommand.findMany({ where: { nodeId, type: 'validate_folder', status: 'pending' }, select: { id: true, payload: true } });
      for (const c of cmds) {
        const folder = String((c.payload as { folder?: unknown }).folder);
        await db.agentEvent.create({ data: { nodeId, seq: seq++, type: 'command_result', commandId: c.id, payload: { commandId: c.id, data: check(folder) }, processedAt: new Date() } });
        await db.agentCommand.update({ where: { id: c.id }, data: { status: 'acked', ackedAt: new Date() } });
      }
    } finally {
      busy = false;
    }
  }, 30);
  return () => clearInterval(timer);
}
