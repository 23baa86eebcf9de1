// Retention sweep benchmark (not a test). Fills a fresh database (embedded Postgres) with
// --events processed agent events, --commands answered agent commands (each with its
// command_result event) and --outbox sent outbox rows (card updates of 200 sessions), two thirds of each older than 30 days, then
// runs one sweep (batches of 1,000, 20 ms pause) while another connection stores an agent event for
// a second node every 10 ms, as the hub does, and reports the sweep's time, the longest batch
// statement and that writer's latency.
//
//   npx tsx packages/core/src/hub/retention.bench.ts [--events 300000] [--commands 100000] [--outbox 50000]
//
// Prints one JSON line.
import { createTestDatabase } from '../../../testkit/src/postgres.ts';
import { createDb } from '../db/client.ts';
import { storeAgentEvent } from '../db/repos/agent-events.ts';
import { createNodeWithToken } from '../db/repos/nodes.ts';
import { sweepRetention, type SweepResult } from './retention.ts';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i === -1 ? def : Number(args[i + 1]);
};
const EVENTS = flag('--events', 300_000);
const COMMANDS = flag('--commands', 100_000);
const OUTBOX = flag('--outbox', 50_000);
const DAYS = 90;

const tdb = await createTestDatabase();
const db = createDb(tdb.url, { max: 4 });
const writerDb = createDb(tdb.url, { max: 2 });
const { nodeId } = await createNodeWithToken(db, { name: 'old' });
const { nodeId: liveNode } = await createNodeWithToken(db, { name: 'live' });
const t0 = Date.now();
// Ages spread evenly over 90 days: two thirds older than 30 days.
await db.$executeRawUnsafe(`
  insert into "AgentCommand" (id, "nodeId", type, payload, status, "createdAt", "ackedAt")
  select gen_random_uuid(), '${nodeId}', 'deliver', '{"messageId":"m","generation":1}'::jsonb, 'acked',
         now() - (i * interval '${DAYS} days' / ${COMMANDS}), now() - (i * interval '${DAYS} days' / ${COMMANDS})
  from generate_series(1, ${COMMANDS}) i`);
await db.$executeRawUnsafe(`
  insert into "AgentEvent" ("nodeId", seq, type, payload, "commandId", "receivedAt", "processedAt")
  select '${nodeId}', row_number() over (order by "createdAt"), 'command_result', '{"data":{"ok":true}}'::jsonb, id, "createdAt", "createdAt"
  from "AgentCommand"`);
await db.$executeRawUnsafe(`
  insert into "AgentEvent" ("nodeId", seq, type, payload, "sessionId", "receivedAt", "processedAt")
  select '${nodeId}', ${COMMANDS} + i, 'usage', '{"data":{"inputTokens":1000,"outputTokens":200}}'::jsonb, gen_random_uuid(),
         now() - (i * interval '${DAYS} days' / ${EVENTS}), now() - (i * interval '${DAYS} days' / ${EVENTS})
  from generate_series(${EVENTS}, 1, -1) i`);
await db.$executeRawUnsafe(`
  insert into "Outbox" (channel, "dedupeKey", kind, "chatId", "sessionId", payload, status, "createdAt", "sentAt", "externalId")
  select 'telegram', 'card:' || i, 'card_update', 42, ('00000000-0000-4000-8000-' || lpad((i % 200)::text, 12, '0'))::uuid, '{"kind":"card_update"}'::jsonb, 'sent',
         now() - (i * interval '${DAYS} days' / ${OUTBOX}), now() - (i * interval '${DAYS} days' / ${OUTBOX}), '1'
  from generate_series(${OUTBOX}, 1, -1) i`); // oldest first, as ids grow with time
await db.$executeRawUnsafe('vacuum analyze');
const fillMs = Date.now() - t0;

// The hub's own writes meanwhile: one agent event of another node every 10 ms.
let seq = 0;
let writing = true;
const writeMs: number[] = [];
const writer = (async () => {
  while (writing) {
    const w0 = performance.now();
    await storeAgentEvent(writerDb, liveNode, { type: 'event', seq: ++seq, at: Date.now(), event: 'usage', payload: { inputTokens: 1 } });
    writeMs.push(performance.now() - w0);
    await new Promise((r) => setTimeout(r, 10));
  }
})();
await new Promise((r) => setTimeout(r, 500));
const baseline = writeMs.length;

const batches: Record<keyof SweepResult, number[]> = {
  commands: [],
  events: [],
  outbox: [],
  activity: [],
  prompts: [],
  deadLetters: [],
  pushes: [],
  answerTokens: [],
};
const s0 = performance.now();
const result = await sweepRetention(db, { days: 30, onBatch: (kind, _n, ms) => batches[kind].push(ms) });
const sweepMs = performance.now() - s0;
writing = false;
await writer;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const r1 = (x: number) => Math.round(x * 10) / 10;
const during = writeMs.slice(baseline);
const left = await db.$queryRaw<{ c: bigint; e: bigint; o: bigint }[]>`
  select (select count(*) from "AgentCommand") c, (select count(*) from "AgentEvent" where "nodeId" = ${nodeId}::uuid) e, (select count(*) from "Outbox") o`;
console.log(
  JSON.stringify({
    bench: 'retention',
    rows: { events: EVENTS + COMMANDS, commands: COMMANDS, outbox: OUTBOX },
    fillMs,
    deleted: result,
    left: { commands: Number(left[0]!.c), events: Number(left[0]!.e), outbox: Number(left[0]!.o) },
    sweepMs: Math.round(sweepMs),
    batchMs: Object.fromEntries(Object.entries(batches).map(([k, xs]) => [k, { n: xs.length, p50: r1(pct(xs, 50)), max: r1(Math.max(...xs)) }])),
    writerMs: {
      before: { n: baseline, p50: r1(pct(writeMs.slice(0, baseline), 50)), max: r1(Math.max(...writeMs.slice(0, baseline))) },
      during: { n: during.length, p50: r1(pct(during, 50)), p99: r1(pct(during, 99)), max: r1(Math.max(...during)) },
    },
  }),
);
await db.$disconnect();
await writerDb.$disconnect();
await tdb.drop();
process.exit(0);
