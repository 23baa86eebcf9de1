/**
 * Queue benchmark (not a test): `npx tsx packages/core/src/engine/queue.bench.ts [messages] [concurrency]`.
 * 1. Latency: 100 idle Ready sessions; one message at a time; from `acceptMessage` returning (the
 *    message is committed) to the NOTIFY of its `deliver` command arriving on a separate connection
 *    (the same wake-up the hub uses), plus the DB-side gap between the two rows' commit times.
 * 2. Throughput: messages accepted per second across the 100 sessions with N concurrent callers
 *    while the engine runs in the same process (each accept also wakes the dispatcher).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pino';
import pgClient from 'pg';
import { createTestDatabase } from '../../../testkit/src/postgres.ts';
import { createDb } from '../db/client.ts';
import { storeAgentEvent } from '../db/repos/agent-events.ts';
import { createNodeWithToken } from '../db/repos/nodes.ts';
import { acceptMessage, createSession } from '../services/index.ts';
import { startEngine } from './start-engine.ts';

const TOTAL = Number(process.argv[2] ?? 5000);
const CONCURRENCY = Number(process.argv[3] ?? 16);
const SESSIONS = 100;
const log = pg({ level: 'silent' });
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const fmt = (xs: number[]) =>
  `p50 ${pct(xs, 50).toFixed(1)} ms, p95 ${pct(xs, 95).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

const tdb = await createTestDatabase();
const db = createDb(tdb.url, { max: 20 });
const engineDb = createDb(tdb.url, { max: 10 });
const { nodeId } = await createNodeWithToken(db, { name: 'bench' });
await db.node.update({ where: { id: nodeId }, data: { online: true, agentInstanceId: 'bench' } });
const engine = await startEngine({ db: engineDb, databaseUrl: tdb.url, log });

const sessions: string[] = [];
let seq = 0;
for (let i = 0; i < SESSIONS; i++) {
  const s = await createSession({ db, log }, { nodeId, executor: 'claude', folder: `/bench/${i}` });
  seq += 1;
  await storeAgentEvent(db, nodeId, {
    type: 'event',
    seq,
    at: Date.now(),
    event: 'session_ready',
    sessionId: s.id,
    generation: 1,
    payload: { identity: { pid: 1000 + i } },
  });
  sessions.push(s.id);
}
await engine.settle();
const ready = await db.session.count({ where: { state: 'Ready' } });
console.log(`setup: ${ready}/${SESSIONS} sessions Ready`);

// 1. Latency, one message at a time, each to an idle session.
const listener = new pgClient.Client({ connectionString: tdb.url });
await listener.connect();
let waiter: (() => void) | null = null;
listener.on('notification', () => waiter?.());
await listener.query('LISTEN bria_agent_commands');
const notifyMs: number[] = [];
for (const sessionId of sessions) {
  const got = new Promise<void>((r) => {
    waiter = r;
  });
  const r = await acceptMessage({ db, log }, { sessionId, text: 'hello', source: 'api' });
  const stored = performance.now();
  await got;
  notifyMs.push(performance.now() - stored);
  waiter = null;
  void r;
}
const gaps = await db.$queryRaw<{ ms: number }[]>`
  select extract(epoch from (c."createdAt" - m."createdAt")) * 1000 as ms
  from "Message" m join "AgentCommand" c on c.id = m."deliveryId"`;
console.log(`latency message stored → deliver NOTIFY received (n=${notifyMs.length}): ${fmt(notifyMs)}`);
console.log(`latency message row → deliver command row, DB clock (n=${gaps.length}): ${fmt(gaps.map((g) => Number(g.ms)))}`);

// 2. Throughput: the sessions are busy now, so the messages queue up (the dispatcher still wakes on each).
// CPU time is counted too (this process: callers + engine; and Postgres, a child of this process):
// on a shared machine the wall-clock rate moves with the load, the CPU cost per message much less.
const clkTck = 100;
const descendantsCpuMs = (): number => {
  let total = 0;
  const kids = (pid: number): number[] => {
    try {
      return readdirSync(`/proc/${pid}/task`).flatMap((t) => {
        try {
          return readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
        } catch {
          return [];
        }
      });
    } catch {
      return [];
    }
  };
  const stack = kids(process.pid);
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += ((Number(f[11]) + Number(f[12])) * 1000) / clkTck;
    } catch {}
    stack.push(...kids(pid));
  }
  return total;
};
const cpu0 = process.cpuUsage();
const pgCpu0 = descendantsCpuMs();
let next = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < TOTAL) {
      const i = next++;
      await acceptMessage({ db, log }, { sessionId: sessions[i % SESSIONS] as string, text: `m${i}`, source: 'api', sourceKey: `bench:${i}` });
    }
  }),
);
const secs = (performance.now() - t0) / 1000;
const cpu1 = process.cpuUsage(cpu0);
const nodeCpuMsPerMsg = (cpu1.user + cpu1.system) / 1000 / TOTAL;
const pgCpuMsPerMsg = (descendantsCpuMs() - pgCpu0) / TOTAL;
await engine.settle();
const stored = await db.message.count();
console.log(
  `throughput: ${TOTAL} messages across ${SESSIONS} sessions, ${CONCURRENCY} concurrent callers: ${(TOTAL / secs).toFixed(0)} msg/s (${secs.toFixed(2)} s); rows stored ${stored}`,
);
console.log(`CPU per accepted message: this process ${nodeCpuMsPerMsg.toFixed(2)} ms, Postgres ${pgCpuMsPerMsg.toFixed(2)} ms`);
const dupes = await db.$queryRaw<{ n: bigint }[]>`select count(*) as n from (select "sessionId", seq from "Message" group by 1, 2 having count(*) > 1) x`;
console.log(`duplicate (session, seq) pairs: ${dupes[0]?.n ?? 0n}`);
// One JSON line for `npm run bench`, and the raw latency samples for scripts/bench-chart.ts.
const summary = (xs: number[]) => ({
  n: xs.length,
  median: Number(pct(xs, 50).toFixed(1)),
  p95: Number(pct(xs, 95).toFixed(1)),
  p99: Number(pct(xs, 99).toFixed(1)),
  max: Number(Math.max(...xs).toFixed(1)),
});
const throughput = Math.round(TOTAL / secs);
console.log(
  JSON.stringify({
    bench: 'queue',
    sessions: SESSIONS,
    messages: TOTAL,
    concurrency: CONCURRENCY,
    storedToNotifyMs: summary(notifyMs),
    dbRowGapMs: summary(gaps.map((g) => Number(g.ms))),
    throughputMsgPerS: throughput,
    cpuMsPerMsg: { process: Number(nodeCpuMsPerMsg.toFixed(2)), postgres: Number(pgCpuMsPerMsg.toFixed(2)) },
    duplicates: Number(dupes[0]?.n ?? 0n),
    goal: 'throughput >= 500 msg/s, p99 < 50 ms',
    pass: throughput >= 500 && pct(notifyMs, 99) < 50,
  }),
);
const outDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../bench-out');
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, 'queue-latency.json'), JSON.stringify({ bench: 'queue', unit: 'ms', samples: { notify: notifyMs } }));

await listener.end();
await engine.stop();
await db.$disconnect();
await engineDb.$disconnect();
await tdb.drop();
process.exit(0);
