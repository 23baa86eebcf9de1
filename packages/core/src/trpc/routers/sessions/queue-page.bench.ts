/**
 * The queue page benchmark (issue 33; not a test):
 *   npx tsx packages/core/src/trpc/routers/sessions/queue-page.bench.ts [messages] [runs]
 * One open session with 10,000 messages by default (answered ones with finals, a few failed,
 * unknown, cancelled and edited, and a waiting tail of 20), plus 10 schedules; times what the session
 * page asks for on every live change through the tRPC caller (login cookie, zod in and out, the real
 * queries): `sessions.get` (the session, its queue lines and the wait reason) and
 * `sessions.schedules`. Goal: p95 < 300 ms each.
 */
import { createTestDatabase } from '../../../../../testkit/src/postgres.ts';
import { createDb } from '../../../db/client.ts';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { signedInCaller } from '../../test-support.ts';

const MESSAGES = Number(process.argv[2] ?? 10_000);
const RUNS = Number(process.argv[3] ?? 30);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;

const tdb = await createTestDatabase();
const db = createDb(tdb.url);
try {
  const { nodeId } = await createNodeWithToken(db, { name: 'bench' });
  await db.node.update({ where: { id: nodeId }, data: { online: true } });
  const [{ id: sessionId } = { id: '' }] = await db.$queryRaw<{ id: string }[]>`
    insert into "Session" (id, "nodeId", executor, folder, "nativeSessionId", state, "launchSource", title, "updatedAt")
    values (gen_random_uuid(), ${nodeId}::uuid, 'claude', '/home/me/project', 'native-queue-bench', 'Ready', 'bria', 'A long session', now())
    returning id::text`;
  await db.$executeRaw`
    insert into "Message" (id, "sessionId", seq, source, text, "finalText", status, "originalText", "createdAt")
    select gen_random_uuid(), ${sessionId}::uuid, k, 'web', 'message ' || k || ' ' || md5(k::text),
      case when k <= ${MESSAGES - 20} and k % 97 <> 0 then 'Done: ' || md5((k * 7)::text) else null end,
      (case when k > ${MESSAGES - 20} then 'pending'
            when k % 97 = 0 then 'failed' when k % 89 = 0 then 'unknown' when k % 83 = 0 then 'cancelled'
            else 'completed' end)::"MessageStatus",
      case when k % 71 = 0 then 'first text ' || k else null end,
      timestamp '2026-11-01' + (k || ' seconds')::interval
    from generate_series(1, ${MESSAGES}) as k`;
  await db.$executeRaw`
    insert into "ScheduledMessage" (id, "sessionId", text, kind, cron, "timeZone", "nextRunAt", "createdFrom")
    select gen_random_uuid(), ${sessionId}::uuid, 'scheduled ' || k, 'recurring', '0 9 * * *', 'UTC', now() + (k || ' hours')::interval, 'web'
    from generate_series(1, 10) as k`;
  await db.$executeRaw`analyze "Message"`;
  const { caller } = await signedInCaller(db);
  const cases: Record<string, () => Promise<unknown>> = {
    'sessions.get': () => caller.sessions.get({ sessionId }),
    'sessions.schedules': () => caller.sessions.schedules({ sessionId }),
  };
  const timings: Record<string, number[]> = {};
  let lines = 0;
  for (let run = 0; run < RUNS + 3; run++) {
    for (const [name, fn] of Object.entries(cases)) {
      const t0 = performance.now();
      const r = await fn();
      const ms = performance.now() - t0;
      if (name === 'sessions.get') lines = (r as { conversation: { items: unknown[] } }).conversation.items.length;
      if (run < 3) continue; // warm-up
      timings[name] ??= [];
      timings[name].push(ms);
    }
  }
  const ms = Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, { p50: Number(pct(v, 50).toFixed(1)), p95: Number(pct(v, 95).toFixed(1)) }]));
  const worst = Math.max(...Object.values(timings).map((v) => pct(v, 95)));
  console.log(
    JSON.stringify({ bench: 'queue_page', messages: MESSAGES, queueLinesShown: lines, runs: RUNS, ms, goal: 'p95 < 300 ms (issue 33)', pass: worst < 300 }),
  );
} finally {
  await db.$disconnect();
  await tdb.drop();
}
process.exit(0);
