/**
 * Benchmark (not a test), issue 31: `npx tsx scripts/stream.bench.ts [--answers 4] [--seconds 60]`,
 * also `npm run bench -- stream`. Two parts, one after the other, each printing JSON lines:
 * - latency: text drawn in a real CLI's pane → visible in Chromium as the session page's draft, and
 *   the tmux floor beside it (e2e/bench/stream-latency.bench.ts, run by Playwright against the same
 *   server the end-to-end tests use);
 * - CPU: the node agent reading drafts of 20 real CLIs streaming at once
 *   (apps/node-agent/src/draft/draft-stream.bench.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { answers: { type: 'string', default: '4' }, seconds: { type: 'string', default: '60' } } });
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'bench-out', 'stream-latency.jsonl');
rmSync(out, { force: true });
let failed = false;
const pw = spawnSync(path.join(root, 'node_modules/.bin/playwright'), ['test', '-c', 'e2e/playwright.bench.config.ts'], {
  cwd: root,
  env: { ...process.env, BRIA_STREAM_ANSWERS: values.answers, BRIA_BENCH_OUT: out },
  // Playwright's report goes to stderr: stdout carries only the result lines (scripts/bench.ts keeps those).
  stdio: ['ignore', 2, 'inherit'],
});
if (pw.status !== 0) failed = true;
if (existsSync(out)) for (const l of readFileSync(out, 'utf8').split('\n')) if (l.startsWith('{')) console.log(l);
const cpu = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['apps/node-agent/src/draft/draft-stream.bench.ts', '--seconds', values.seconds], {
  cwd: root,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (cpu.status !== 0) failed = true;
for (const l of (cpu.stdout ?? '').split('\n')) if (l.startsWith('{')) console.log(l);
process.exit(failed ? 1 : 0);
