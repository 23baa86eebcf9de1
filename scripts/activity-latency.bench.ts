/**
 * Live-progress latency (not a test): `npx tsx scripts/activity-latency.bench.ts [--steps 30]`.
 * A real engine over a test Postgres, a Running Codex session with an accepted message, the bot's
 * ProgressTicker against the fake Bot API. Per step, an `activity` event (a new command) is stored
 * exactly as the hub stores an agent frame, and the clock runs to
 * - dashboard: the `bria_changes` NOTIFY for the session on a separate connection (what makes the
 *   page refetch) with the SessionActivity row committed;
 * - card: the fake Telegram server receiving the `editMessageText` that shows the new command.
 * Each step waits until the 3 s progress gap after the previous edit has passed, so the card figure is
 * the pipeline's own latency, not the throttle's wait. The journal → agent event hop is
 * `npm run bench -- journal-tail`.
 */
import { parseArgs } from 'node:util';
import { Api } from 'grammy';
import pgClient from 'pg';
import pino from 'pino';
import { ProgressTicker, PROGRESS_EDIT_GAP_MS } from '../apps/bot/src/card/progress-ticker.ts';
import { showCard } from '../apps/bot/src/card/card-service.ts';
import { createDb } from '../packages/core/src/db/client.ts';
import { storeAgentEvent } from '../packages/core/src/db/repos/agent-events.ts';
import { createNodeWithToken } from '../packages/core/src/db/repos/nodes.ts';
import { startEngine } from '../packages/core/src/engine/start-engine.ts';
import { acceptMessage, createSession } from '../packages/core/src/services/index.ts';
import { seedChat } from '../packages/testkit/src/bot-fixtures.ts';
import { startFakeTelegram } from '../packages/testkit/src/fake-telegram/index.ts';
import { createTestDatabase } from '../packages/testkit/src/postgres.ts';

const { values } = parseArgs({ options: { steps: { type: 'string', default: '30' } } });
const STEPS = Number(values.steps);
const log = pino({ level: 'silent' });
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;
const summary = (xs: number[]) => ({ p50: Number(pct(xs, 50).toFixed(1)), p99: Number(pct(xs, 99).toFixed(1)), max: Number(Math.max(...xs).toFixed(1)) });

const tdb = await createTestDatabase();
const db = createDb(tdb.url, { max: 8 });
const engine = await startEngine({ db: createDb(tdb.url, { max: 6 }), databaseUrl: tdb.url, log });
const { nodeId } = await createNodeWithToken(db, { name: 'bench' });
await db.node.update({ where: { id: nodeId }, data: { online: true, agentInstanceId: 'bench' } });
const fake = await startFakeTelegram();
const chatId = fake.user.id;
fake.userSends('hello');
await seedChat(db, { chatId, selectedNodeId: nodeId });
const s = await createSession({ db, log }, { nodeId, executor: 'codex', folder: '/bench/app', chatId: BigInt(chatId) });
let seq = 0;
const store = async (event: string, payload: Record<string, unknown>) => {
  seq += 1;
  await storeAgentEvent(db, nodeId, { type: 'event', seq, at: Date.now(), event, sessionId: s.id, generation: 1, payload });
};
await store('session_ready', { identity: { nativeSessionId: '01a2368c-d855-7312-9f0e-4ffe2a850ce0', pid: 4242 } });
await engine.settle();
const m = await acceptMessage({ db, log }, { sessionId: s.id, text: 'work', source: 'web' });
await engine.settle();
await store('turn_accepted', { messageId: m.message.id, nativeTurnId: 'turn-1' });
await engine.settle();
await db.chatNodeState.upsert({ where: { chatId_nodeId: { chatId: BigInt(chatId), nodeId } }, create: { chatId: BigInt(chatId), nodeId, activeSessionId: s.id }, update: { activeSessionId: s.id } });
const api = new Api(fake.token, { apiRoot: fake.apiRoot, timeoutSeconds: 5 });
await showCard({ api, db, chatId: BigInt(chatId), sessionId: s.id });
const ticker = new ProgressTicker({ api, db, databaseUrl: tdb.url, log });
await ticker.start();

const listener = new pgClient.Client({ connectionString: tdb.url });
await listener.connect();
await listener.query('listen bria_changes');
let onChange: (() => void) | null = null;
listener.on('notification', (n) => {
  if (n.payload === `s:${s.id}`) onChange?.();
});

const toDashboard: number[] = [];
const toCard: number[] = [];
let lastEdit = Date.now();
for (let i = 1; i <= STEPS; i++) {
  const wait = lastEdit + PROGRESS_EDIT_GAP_MS + 50 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const subject = `npm run step-${i}`;
  const item = { ref: `call_${i}`, source: { recordId: `call_${i}`, offset: i * 100 }, nativeTurnId: 'turn-1', kind: 'command', toolName: 'exec_command', subject, status: 'running', startedAt: Date.now() };
  const t0 = performance.now();
  const changed = new Promise<void>((resolve) => {
    onChange = async () => {
      if (await db.sessionActivity.findUnique({ where: { sessionId_ref: { sessionId: s.id, ref: item.ref } }, select: { id: true } })) resolve();
    };
  });
  const edited = fake.waitForCall('editMessageText', (c) => String(c.params.text ?? '').includes(subject), 30_000);
  await store('activity', { items: [item] });
  await changed;
  toDashboard.push(performance.now() - t0);
  const edit = await edited;
  toCard.push(performance.now() - t0);
  lastEdit = edit.at;
}
const errors = fake.calls().filter((c) => (c.status ?? 200) >= 400).length;
console.log(JSON.stringify({
  bench: 'activity-latency', steps: STEPS, storedToDashboardNotifyMs: summary(toDashboard), storedToCardEditMs: summary(toCard), telegramErrors: errors,
  goal: 'card edit p99 < 1000 ms outside the 3 s gap; dashboard p99 < 200 ms', pass: pct(toCard, 99) < 1000 && pct(toDashboard, 99) < 200 && errors === 0,
}));
await ticker.stop();
await listener.end();
await engine.stop();
await fake.close();
await db.$disconnect();
await tdb.drop();
process.exit(0);
