/**
 * Live-progress latency (not a test): `npx tsx scripts/activity-latency.bench.ts [--steps 30]`.
 * A real engine over a test Postgres, a Running Codex session with an accepted message, the bot's
 * ProgressTicker against the fake Bot API. Per step, an `activity` event (a new command) is stored
 * exactly as the hub stores an agent frame, and the clock runs to
 * - dashboard: the `bria_changes` NOTIFY for the session on a separate connection (what makes the
 *   page refetch) with the SessionActivity row committed;
 * - card: the fake Telegram server receiving the `editMessageText` that shows the new command.
 * Each step waits until the 3 s progress gap after the previous edit has passed, so the card figure is
 * the pipeline's own latency, not the throttle's wait.
 *
 * `--from journal` (issue 18) starts the clock one hop earlier: a Codex `function_call` record is
 * appended to a real rollout file, followed by the agent's own reader (`JsonlTailer` → `CodexJournal`
 * → activity drain, as `SessionHost` wires them), and the activity it yields is stored as above. Not
 * in it: the agent → hub WebSocket frame (the agent and the hub are one process here). `--from both`
 * (the default) runs the stored mode, then the journal mode, and prints one line for each.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Api } from 'grammy';
import pgClient from 'pg';
import pino from 'pino';
import { CodexJournal } from '../apps/node-agent/src/journal/codex-journal.ts';
import { JsonlTailer } from '../apps/node-agent/src/journal/jsonl-tailer.ts';
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

const { values } = parseArgs({ options: { steps: { type: 'string', default: '30' }, from: { type: 'string', default: 'both' } } });
const STEPS = Number(values.steps);
const MODES = values.from === 'both' ? (['stored', 'journal'] as const) : ([values.from] as ('stored' | 'journal')[]);
if (MODES.some((m) => m !== 'stored' && m !== 'journal')) throw new Error(`--from stored|journal|both, not ${values.from}`);
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
await db.chatNodeState.upsert({
  where: { chatId_nodeId: { chatId: BigInt(chatId), nodeId } },
  create: { chatId: BigInt(chatId), nodeId, activeSessionId: s.id },
  update: { activeSessionId: s.id },
});
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

// The agent's side of `--from journal`: a rollout file followed by the agent's tailer and Codex reader;
// every activity it drains is stored as the hub stores the agent's frame.
const journalDir = mkdtempSync(path.join(tmpdir(), 'bria-activity-bench-'));
const rollout = path.join(journalDir, 'rollout.jsonl');
writeFileSync(rollout, '');
const journal = new CodexJournal();
let drained: (() => void) | null = null;
const tailer = new JsonlTailer({
  path: rollout,
  pollMs: 10_000,
  onLines: (lines) => {
    journal.ingest(lines);
    const out = journal.activity.drain();
    if (out.length === 0) return;
    drained?.();
    void (async () => {
      for (const activity of out) await store('activity', activity as unknown as Record<string, unknown>);
    })();
  },
});
tailer.start();

let lastEdit = Date.now();
let step = 0;
async function run(mode: 'stored' | 'journal') {
  const toAgentEvent: number[] = [];
  const toDashboard: number[] = [];
  const toCard: number[] = [];
  for (let n = 0; n < STEPS; n++) {
    const i = ++step;
    const wait = lastEdit + PROGRESS_EDIT_GAP_MS + 50 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const subject = `npm run step-${i}`;
    const ref = `call_${i}`;
    const changed = new Promise<void>((resolve) => {
      onChange = async () => {
        if (await db.sessionActivity.findUnique({ where: { sessionId_ref: { sessionId: s.id, ref } }, select: { id: true } })) resolve();
      };
    });
    const edited = fake.waitForCall('editMessageText', (c) => String(c.params.text ?? '').includes(subject), 30_000);
    const parsed = new Promise<number>((r) => (drained = () => r(performance.now())));
    const t0 = performance.now();
    if (mode === 'stored') {
      const item = {
        ref,
        source: { recordId: ref, offset: i * 100 },
        nativeTurnId: 'turn-1',
        kind: 'command',
        toolName: 'exec_command',
        subject,
        status: 'running',
        startedAt: Date.now(),
      };
      await store('activity', { items: [item] });
    } else {
      const payload = {
        type: 'function_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: subject }),
        call_id: ref,
        internal_chat_message_metadata_passthrough: { turn_id: 'turn-1' },
      };
      appendFileSync(rollout, `${JSON.stringify({ timestamp: new Date().toISOString(), type: 'response_item', payload })}\n`);
      toAgentEvent.push((await parsed) - t0);
    }
    await changed;
    toDashboard.push(performance.now() - t0);
    const edit = await edited;
    toCard.push(performance.now() - t0);
    lastEdit = edit.at;
  }
  drained = null;
  return { toAgentEvent, toDashboard, toCard };
}

for (const mode of MODES) {
  const r = await run(mode);
  const errors = fake.calls().filter((c) => (c.status ?? 200) >= 400).length;
  console.log(
    JSON.stringify({
      bench: 'activity-latency',
      from: mode,
      steps: STEPS,
      ...(mode === 'journal' ? { journalToAgentEventMs: summary(r.toAgentEvent) } : {}),
      [`${mode}ToDashboardNotifyMs`]: summary(r.toDashboard),
      [`${mode}ToCardEditMs`]: summary(r.toCard),
      telegramErrors: errors,
      goal: 'card edit p99 < 1000 ms outside the 3 s gap; dashboard p99 < 200 ms',
      pass: pct(r.toCard, 99) < 1000 && pct(r.toDashboard, 99) < 200 && errors === 0,
    }),
  );
}
tailer.stop();
rmSync(journalDir, { recursive: true, force: true });
await ticker.stop();
await listener.end();
await engine.stop();
await fake.close();
await db.$disconnect();
await tdb.drop();
process.exit(0);
