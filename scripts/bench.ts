import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Baseline, formatSummary, parseResults, summaryRows } from './bench-summary.ts';

/**
 * `npm run bench [-- name…]`: runs Bria's benchmarks one after another (never in parallel, so they
 * do not disturb each other's timings), prints each one's JSON result line and writes them all to
 * bench-out/results.jsonl, with the load averages before and after the run (`bench: "run"` lines),
 * then the issue 18 table (path | p50 | p99 | baseline | floor, scripts/bench-summary.ts).
 * `npm run bench -- summary` prints that table again from the last results.jsonl without running
 * anything. Figures and the commands behind them are recorded in docs/benchmarks.md.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BENCHES: Record<string, { file: string; args: string[] }> = {
  floors: { file: 'scripts/floors.bench.ts', args: ['--samples', '200'] },
  hub: { file: 'packages/core/src/hub/hub.bench.ts', args: ['--agents', '1000', '--idle-seconds', '30'] },
  discovery: { file: 'apps/node-agent/src/discovery/discovery.bench.ts', args: [] },
  queue: { file: 'packages/core/src/engine/queue.bench.ts', args: [] },
  agent: { file: 'apps/node-agent/src/executors/agent-latency.bench.ts', args: ['--messages', '100'] },
  'journal-tail': { file: 'apps/node-agent/src/journal/journal-tail.bench.ts', args: ['--appends', '300'] },
  'hub-memory': { file: 'scripts/hub-memory.bench.ts', args: [] },
  e2e: { file: 'scripts/e2e-latency.bench.ts', args: ['--messages', '40'] },
  prompt: { file: 'scripts/prompt-latency.bench.ts', args: ['--requests', '30'] },
  activity: { file: 'scripts/activity-latency.bench.ts', args: ['--steps', '30'] },
  archive: { file: 'packages/core/src/trpc/routers/archive/archive.bench.ts', args: ['10000', '30'] },
  usage: { file: 'packages/core/src/trpc/routers/usage/usage.bench.ts', args: ['100000', '30'] },
  'agent-idle': { file: 'apps/node-agent/src/executors/agent-idle.bench.ts', args: ['--claude', '10', '--codex', '10', '--seconds', '60'] },
  ledger: { file: 'apps/node-agent/src/ledger/ledger.bench.ts', args: ['--commands', '100000', '--days', '90'] },
  'agent-bundle': { file: 'scripts/agent-bundle.bench.ts', args: ['--runs', '5'] },
  handoff: { file: 'scripts/handoff.bench.ts', args: ['--runs', '10'] },
  stream: { file: 'scripts/stream.bench.ts', args: ['--answers', '4', '--seconds', '60'] },
  'queue-page': { file: 'packages/core/src/trpc/routers/sessions/queue-page.bench.ts', args: ['10000', '30'] },
  retention: { file: 'packages/core/src/hub/retention.bench.ts', args: ['--events', '300000', '--commands', '100000', '--outbox', '50000'] },
};
const outDir = path.join(root, 'bench-out');
const resultsFile = path.join(outDir, 'results.jsonl');
function printSummary(): void {
  const results = parseResults(readFileSync(resultsFile, 'utf8'));
  const baseline = JSON.parse(readFileSync(path.join(root, 'docs/bench-baseline.json'), 'utf8')) as Baseline;
  console.log(`\n${formatSummary(summaryRows(results, baseline), results)}`);
}
const wanted = process.argv.slice(2);
if (wanted.length === 1 && wanted[0] === 'summary') {
  if (!existsSync(resultsFile)) {
    console.error('no bench-out/results.jsonl yet: run `npm run bench` first');
    process.exit(2);
  }
  printSummary();
  process.exit(0);
}
const names = wanted.length ? wanted : Object.keys(BENCHES);
mkdirSync(outDir, { recursive: true });
const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout?.trim() || null;
// Issue 18 wants the machine quiet (1-min load < 1) before and after; the figures say whether it was.
const loadLine = (phase: string) =>
  JSON.stringify({ bench: 'run', phase, at: new Date().toISOString(), loadavg: loadavg().map((x) => Number(x.toFixed(2))), commit, benches: names });
const REST_MS = 60_000;
const results: string[] = [loadLine('before')];
console.log(results[0]);
let failures = 0;
for (const name of names) {
  const b = BENCHES[name];
  if (!b) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  if (!existsSync(path.join(root, b.file))) {
    console.log(`[bench] ${name}: ${b.file} does not exist yet, skipped`);
    continue;
  }
  console.log(`[bench] ${name}: npx tsx ${b.file} ${b.args.join(' ')}`);
  const r = spawnSync(path.join(root, 'node_modules/.bin/tsx'), [b.file, ...b.args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 20 * 60_000,
  });
  const lines = (r.stdout ?? '').split('\n').filter((l) => l.startsWith('{'));
  process.stdout.write(r.stdout ?? '');
  if (r.status !== 0) failures++;
  results.push(...lines);
}
results.push(loadLine('after'));
console.log(results.at(-1));
// The 1-min load right after the run still holds the benches' own last minute (the retention bench
// keeps Postgres busy to its end). A minute of rest lets it fall away: still ≥ 1 then means other
// work was running beside the benches. Both readings are kept; the verdict uses the rested one.
console.log(`[bench] resting ${REST_MS / 1000} s before the last load reading`);
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, REST_MS);
results.push(loadLine('rested'));
console.log(results.at(-1));
writeFileSync(resultsFile, results.map((l) => `${l}\n`).join(''));
console.log(`[bench] ${results.length} result line(s) written to bench-out/results.jsonl`);
printSummary();
process.exit(failures ? 1 : 0);
