/**
 * Usage page benchmark (not a test): `npx tsx packages/core/src/trpc/routers/usage/usage.bench.ts [turns] [runs]`.
 * 100,000 turns (TurnUsage rows) over 90 days, 5 computers, 2,000 sessions, 8 models (two without
 * a price), and a limit state per computer and CLI; times the dashboard's `usage.summary` through
 * the tRPC caller (login cookie, zod in/out, the real SQL sums and the pricing) for 7, 30 and 90
 * days, `usage.limits`, and the pump's spend check (`readSpendHold`) with both budgets set.
 */
import { createTestDatabase } from '../../../../../testkit/src/postgres.ts';
import { createDb } from '../../../db/client.ts';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { writeUsageSettings } from '../../../db/repos/usage.ts';
import { readSpendHold } from '../../../engine/step/usage.ts';
import { signedInCaller } from '../../test-support.ts';

const TURNS = Number(process.argv[2] ?? 100_000);
const RUNS = Number(process.argv[3] ?? 30);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;

const tdb = await createTestDatabase();
const db = createDb(tdb.url);
try {
  const nodes: string[] = [];
  for (let i = 0; i < 5; i++) nodes.push((await createNodeWithToken(db, { name: `bench-${i}` })).nodeId);
  await db.$executeRaw`
    insert into "Session" (id, "nodeId", executor, folder, "nativeSessionId", state, title, "updatedAt")
    select gen_random_uuid(), (${nodes}::uuid[])[1 + (i % 5)], (case when i % 3 = 0 then 'codex' else 'claude' end)::"Executor",
      '/home/me/p-' || (i % 40), 'native-' || i, 'Archived', 'Session ' || i, now()
    from generate_series(1, 2000) as i`;
  await db.$executeRaw`
    insert into "TurnUsage" ("eventId", "sessionId", "nodeId", executor, model, at, "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")
    select k, s.id, s."nodeId", s.executor,
      (array['claude-sonnet-4-5-20250929','claude-opus-4-5-20251101','claude-haiku-4-5','gpt-5-codex','gpt-5.1-codex','gpt-5-mini','mock-model','claude-opus-4-8'])[1 + (k % 8)],
      now() - ((k % 90) || ' days')::interval - ((k % 1440) || ' minutes')::interval,
      1000 + (k % 5000), 100 + (k % 900), 20000 + (k % 70000), (k % 4000)
    from generate_series(1, ${TURNS}) as k
    join (select id, "nodeId", executor, row_number() over (order by id) as n from "Session") s on s.n = 1 + (k % 2000)`;
  await db.$executeRaw`
    insert into "UsageLimit" ("nodeId", executor, reached, "resetsAt", windows, "observedAt")
    select n, e::"Executor", false, null, '[{"name":"primary","usedPercent":42,"windowMinutes":300}]'::jsonb, now()
    from unnest(${nodes}::uuid[]) as n, unnest(array['claude','codex']) as e`;
  await db.$executeRaw`analyze "TurnUsage"`;
  await writeUsageSettings(db, {
    budgetSessionUsd: 1000,
    budgetDayUsd: 100000,
    priceOverrides: { 'mock-model': { input: 1, output: 1, cacheRead: 0.1, cacheWrite: 1 } },
  });
  const turns = await db.turnUsage.count();
  const session = await db.session.findFirstOrThrow({ select: { id: true, nodeId: true, executor: true } });
  const { caller } = await signedInCaller(db);
  const cases: Record<string, () => Promise<unknown>> = {
    summary7: () => caller.usage.summary({ days: 7 }),
    summary30: () => caller.usage.summary({ days: 30 }),
    summary90: () => caller.usage.summary({ days: 90 }),
    limits: () => caller.usage.limits(),
    pumpSpendCheck: () => readSpendHold(db, session, new Date()),
  };
  const timings: Record<string, number[]> = {};
  for (let run = 0; run < RUNS + 3; run++) {
    for (const [name, call] of Object.entries(cases)) {
      const t0 = performance.now();
      await call();
      const ms = performance.now() - t0;
      if (run < 3) continue; // 3 warm-up rounds
      timings[name] ??= [];
      timings[name].push(ms);
    }
  }
  const summary = Object.fromEntries(
    Object.entries(timings).map(([k, v]) => [
      k,
      { p50: Number(pct(v, 50).toFixed(1)), p95: Number(pct(v, 95).toFixed(1)), p99: Number(pct(v, 99).toFixed(1)) },
    ]),
  );
  const worstP95 = Math.max(...['summary7', 'summary30', 'summary90', 'limits'].map((k) => pct(timings[k] ?? [], 95)));
  console.log(
    JSON.stringify({ bench: 'usage', turns, runs: RUNS, ms: summary, goal: 'the Usage page p95 < 300 ms over 100,000 turns (issue 33)', pass: worstP95 < 300 }),
  );
} finally {
  await db.$disconnect();
  await tdb.drop();
}
// The private Postgres cluster (a child process) keeps the event loop alive; its exit hook stops it.
process.exit(0);
