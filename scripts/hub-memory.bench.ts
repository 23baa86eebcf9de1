/**
 * Benchmark (not a test): what the hub process's memory is made of. Each stage runs in a fresh
 * process started the way `npm start` starts the hub (`node --import tsx`), does one more step of
 * what the hub does at start, waits 3 s, and reports process.memoryUsage():
 *   node       bare `node -e` (no tsx)          tsx        + the tsx loader, nothing imported
 *   modules    + the hub's modules imported     client     + Prisma client created (no query)
 *   query      + one query answered             hub        + Hub listening and the engine running (0 agents)
 *   wasm       tsx + only Prisma's query-compiler WebAssembly module compiled (what the first query pulls in)
 *
 *   npx tsx scripts/hub-memory.bench.ts [--node-flag <flag>]…
 * The 1,000-agent figure comes from packages/core/src/hub/hub.bench.ts. Prints one JSON line.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const me = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(me), '..');
const mb = (n: number) => Math.round(n / 2 ** 20);
const usage = () => {
  const m = process.memoryUsage();
  return { rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed), heapTotalMb: mb(m.heapTotal), externalMb: mb(m.external), arrayBuffersMb: mb(m.arrayBuffers) };
};
const settle = () => new Promise((r) => setTimeout(r, 3000));

const stageArg = process.argv.indexOf('--stage');
if (stageArg !== -1) {
  // Child: run up to the given stage, then report.
  const stage = process.argv[stageArg + 1]!;
  const url = process.env.DATABASE_URL!;
  const steps = ['tsx', 'modules', 'client', 'query', 'hub'];
  const upTo = steps.indexOf(stage);
  if (stage === 'wasm') {
    // Prisma 7's query compiler alone: its WebAssembly module (shipped as base64) compiled by V8.
    // @ts-expect-error: a generated runtime file without type declarations
    const { wasm } = (await import('../node_modules/@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.mjs')) as { wasm: string };
    const module = new WebAssembly.Module(Buffer.from(wasm, 'base64'));
    (globalThis as { keep?: unknown }).keep = module;
  }
  if (upTo >= 1) {
    const [{ createDb }, { Hub }, { startEngine }, { createLogger }, { freePort }] = await Promise.all([
      import('../packages/core/src/db/client.ts'),
      import('../packages/core/src/hub/server.ts'),
      import('../packages/core/src/engine/start-engine.ts'),
      import('../packages/core/src/log.ts'),
      import('../packages/core/src/db/embedded-postgres.ts'),
    ]);
    if (upTo >= 2) {
      const db = createDb(url);
      if (upTo >= 3) await db.node.count();
      if (upTo >= 4) {
        const log = createLogger({ name: 'hub', level: 'warn' });
        const hub = new Hub({ db, databaseUrl: url, host: '127.0.0.1', port: await freePort(), heartbeatMs: 10_000, log });
        await hub.start();
        await startEngine({ db, databaseUrl: url, log });
      }
    }
  }
  await settle();
  console.log(JSON.stringify({ stage, ...usage() }));
  process.exit(0);
}

// Optional V8/Node flags for the stage processes, e.g. `--node-flag --liftoff-only` to see how much
// of the first query's memory is WebAssembly tier-up.
const nodeFlags = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--node-flag' ? [a] : []));
const { createTestDatabase } = await import('../packages/testkit/src/postgres.ts');
const tdb = await createTestDatabase();
const env = { ...process.env, DATABASE_URL: tdb.url };
const stages: Record<string, unknown>[] = [];
const bare = spawnSync(
  process.execPath,
  [
    '-e',
    `setTimeout(() => { const m = process.memoryUsage(); console.log(JSON.stringify({ stage: 'node', rssMb: Math.round(m.rss / 2 ** 20), heapUsedMb: Math.round(m.heapUsed / 2 ** 20) })); }, 3000)`,
  ],
  { encoding: 'utf8' },
);
stages.push(JSON.parse(bare.stdout.trim()) as Record<string, unknown>);
for (const stage of ['tsx', 'wasm', 'modules', 'client', 'query', 'hub']) {
  const r = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', me, '--stage', stage], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`stage ${stage} failed: ${r.stderr}`);
  stages.push(JSON.parse(line) as Record<string, unknown>);
}
await tdb.drop();
const rss = Object.fromEntries(stages.map((s) => [s.stage, s.rssMb as number]));
const step = (a: string, b: string) => (rss[b] ?? 0) - (rss[a] ?? 0);
console.log(
  JSON.stringify({
    bench: 'hub_memory',
    nodeFlags,
    stages,
    addedMb: {
      tsxLoader: step('node', 'tsx'),
      hubModules: step('tsx', 'modules'),
      prismaClient: step('modules', 'client'),
      firstQuery: step('client', 'query'),
      hubAndEngine: step('query', 'hub'),
      queryCompilerWasmAlone: step('tsx', 'wasm'),
    },
  }),
);
process.exit(0);
