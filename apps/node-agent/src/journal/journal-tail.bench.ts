/**
 * Benchmark (not a test): journal line written → line delivered by Bria's `JsonlTailer`, side by
 * side with readers that poll every 1 s and every 2 s (how comparable tools follow a journal).
 *
 *   npx tsx apps/node-agent/src/journal/journal-tail.bench.ts [--appends 300] [--gap-ms 20..80]
 *
 * A separate writer process (like a CLI) appends JSONL records at random gaps, each stamped with its
 * wall-clock time (sub-millisecond) just before the write; this process follows the file with the
 * tailer and the two pollers at once and takes, per record, "seen" minus "stamped". Goal p99 < 100 ms.
 * Prints one JSON line; raw samples go to bench-out/journal-tail.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { JsonlTailer } from './jsonl-tailer.ts';

const { values } = parseArgs({ options: { appends: { type: 'string', default: '300' }, 'gap-ms': { type: 'string', default: '20..80' } } });
const APPENDS = Number(values.appends);
const [gapMin, gapMax] = values['gap-ms'].split('..').map(Number) as [number, number];
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const wall = () => performance.timeOrigin + performance.now();

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n: s.length, min: r(s[0] ?? Number.NaN), median: r(at(50)), p90: r(at(90)), p99: r(at(99)), max: r(s.at(-1) ?? Number.NaN) };
}

const dir = mkdtempSync(join(tmpdir(), 'bria-tail-bench-'));
const file = join(dir, 'session.jsonl');
writeFileSync(file, '');

const stampOf = (text: string) => (JSON.parse(text) as { wall: number }).wall;
const tailed: number[] = [];
const tailer = new JsonlTailer({
  path: file,
  onLines: (lines) => {
    const now = wall();
    for (const l of lines) tailed.push(now - stampOf(l.text));
  },
});
tailer.start();

/** What a 1–2 s poller sees: every interval, whatever complete lines were appended since. */
function poller(everyMs: number) {
  const got: number[] = [];
  let offset = 0;
  const timer = setInterval(() => {
    if (statSync(file).size <= offset) return;
    const now = wall();
    const text = readFileSync(file).subarray(offset).toString('utf8');
    const last = text.lastIndexOf('\n');
    if (last < 0) return;
    for (const line of text.slice(0, last).split('\n')) got.push(now - stampOf(line));
    offset += Buffer.byteLength(text.slice(0, last + 1));
  }, everyMs);
  return { got, stop: () => clearInterval(timer) };
}
const poll1 = poller(1000);
const poll2 = poller(2000);

// The writer is its own process, so its writes do not wait for this event loop (as with a real CLI).
const writer = `
const fs = require('node:fs');
const fd = fs.openSync(${JSON.stringify(file)}, 'a');
let i = 0;
const pad = 'x'.repeat(300);
const next = () => {
  if (i === ${APPENDS}) { fs.closeSync(fd); return; }
  const rec = { timestamp: new Date().toISOString(), type: 'bench', seq: i++, pad, wall: performance.timeOrigin + performance.now() };
  fs.writeSync(fd, JSON.stringify(rec) + '\\n');
  setTimeout(next, ${gapMin} + Math.random() * ${gapMax - gapMin});
};
next();`;
await new Promise<void>((res, rej) =>
  spawn(process.execPath, ['-e', writer], { stdio: 'inherit' }).on('exit', (c) => (c === 0 ? res() : rej(new Error(`writer exited ${c}`)))),
);
await new Promise((r) => setTimeout(r, 2500));
tailer.stop();
poll1.stop();
poll2.stop();
rmSync(dir, { recursive: true, force: true });

const result = {
  bench: 'journal_tail',
  appends: APPENDS,
  gapMs: [gapMin, gapMax],
  tailerMs: stats(tailed),
  poll1sMs: stats(poll1.got),
  poll2sMs: stats(poll2.got),
  goalP99Ms: 100,
  pass: tailed.length === APPENDS && stats(tailed).p99 < 100,
};
console.log(JSON.stringify(result));
mkdirSync(join(root, 'bench-out'), { recursive: true });
writeFileSync(
  join(root, 'bench-out', 'journal-tail.json'),
  JSON.stringify({
    bench: 'journal-tail',
    unit: 'ms',
    at: new Date().toISOString(),
    samples: { tailer: tailed, 'poll 1 s': poll1.got, 'poll 2 s': poll2.got },
  }),
);
process.exit(0);
