/**
 * Archive list benchmark (not a test): `npx tsx packages/core/src/trpc/routers/archive/archive.bench.ts [rows] [runs]`.
 * 10,000 archived sessions on one node (a third Codex, half discovered, 50 folders); times the
 * dashboard's `archive.list` through the tRPC caller (login cookie, zod in/out, the real query):
 * the first page, a page near the end (keyset cursor after 9,900 rows), a search that matches
 * many (folder), a search that matches one row (first prompt, so the whole archive is scanned),
 * a search that matches nothing, and the executor filter with a deep cursor; with MESSAGES stored
 * prompts and finals (10 per session by default: 100,000), full-text searches over the conversation
 * across every computer: a rare word in a later message, a common word, a word in no message, and the
 * first page of every computer's archive.
 */
import { createTestDatabase } from '../../../../../testkit/src/postgres.ts';
import { createDb } from '../../../db/client.ts';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { signedInCaller } from '../../test-support.ts';

const ROWS = Number(process.argv[2] ?? 10_000);
const RUNS = Number(process.argv[3] ?? 30);
const MESSAGES = Number(process.argv[4] ?? ROWS * 10);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;

const tdb = await createTestDatabase();
const db = createDb(tdb.url);
try {
  const { nodeId } = await createNodeWithToken(db, { name: 'bench' });
  await db.$executeRaw`
    insert into "Session" (id, "nodeId", executor, folder, "nativeSessionId", state, "launchSource", title, "firstPrompt", "archivedAt", "archiveSortAt", "updatedAt")
    select gen_random_uuid(), ${nodeId}::uuid, (case when i % 3 = 0 then 'codex' else 'claude' end)::"Executor",
      '/home/me/project-' || (i % 50), 'native-' || i, 'Archived', case when i % 2 = 0 then 'discovered' else 'bria' end,
      'Session ' || i, case when i = 4242 then 'please refactor the zebra parser' else 'prompt number ' || i || ' about ' || md5(i::text) end,
      now(), timestamp '2026-01-01' + (i || ' minutes')::interval, now()
    from generate_series(1, ${ROWS}) as i`;
  // Prompts and finals: words from a small vocabulary plus an md5 (unique tokens), so the GIN index
  // holds many distinct words; one later message of one session carries a rare word.
  await db.$executeRaw`
    insert into "Message" (id, "sessionId", seq, source, text, "finalText", status)
    select gen_random_uuid(), s.id, k, 'web',
      (array['fix','refactor','test','explain','build','deploy'])[1 + (k % 6)] || ' the ' || (array['parser','widget','server','cache','router'])[1 + (s.n % 5)] || ' ' || md5(s.n::text || '-' || k),
      case when k = 8 and s.n = 4242 then 'I tuned the quetzal renderer' else 'Done: ' || md5(k::text || s.n::text) || ' updated' end,
      'completed'
    from (select id, row_number() over (order by id) as n from "Session") s, generate_series(1, ${Math.ceil(MESSAGES / ROWS)}) as k`;
  await db.$executeRaw`analyze "Session"`;
  await db.$executeRaw`analyze "Message"`;
  const messages = await db.message.count();
  const { caller } = await signedInCaller(db);
  const deep = await db.session.findMany({
    where: { nodeId, state: 'Archived' },
    orderBy: [{ archiveSortAt: 'desc' }, { id: 'desc' }],
    skip: Math.max(0, ROWS - 101),
    take: 1,
    select: { id: true },
  });
  const deepCursor = deep[0]?.id ?? null;
  const cases = {
    firstPage: { nodeId },
    deepPage: { nodeId, cursor: deepCursor },
    searchManyFolder: { nodeId, search: 'project-7' },
    searchOneRow: { nodeId, search: 'zebra' },
    searchNoMatch: { nodeId, search: 'nothing like this' },
    executorDeep: { nodeId, executor: 'codex' as const, cursor: deepCursor },
    allComputersFirstPage: {},
    textRareWordAllComputers: { search: 'quetzal' },
    textCommonWordAllComputers: { search: 'refactor parser' },
    textNoMatchAllComputers: { search: 'xylophone' },
  };
  const timings: Record<string, number[]> = {};
  const hits: Record<string, number> = {};
  for (let run = 0; run < RUNS + 3; run++) {
    for (const [name, input] of Object.entries(cases)) {
      const t0 = performance.now();
      const page = await caller.archive.list(input);
      const ms = performance.now() - t0;
      hits[name] = page.items.length;
      if (run < 3) continue; // 3 warm-up rounds
      timings[name] ??= [];
      timings[name].push(ms);
    }
  }
  const summary = Object.fromEntries(
    Object.entries(timings).map(([k, v]) => [
      k,
      { p50: Number(pct(v, 50).toFixed(1)), p95: Number(pct(v, 95).toFixed(1)), p99: Number(pct(v, 99).toFixed(1)), rows: hits[k] },
    ]),
  );
  const worstP95 = Math.max(...Object.values(timings).map((v) => pct(v, 95)));
  console.log(
    JSON.stringify({
      bench: 'archive',
      archivedRows: ROWS,
      messages,
      runs: RUNS,
      ms: summary,
      goal: 'every page and search p95 < 300 ms (issue 16)',
      pass: worstP95 < 300,
    }),
  );
} finally {
  await db.$disconnect();
  await tdb.drop();
}
// The private Postgres cluster (a child process) keeps the event loop alive; its exit hook stops it.
process.exit(0);
