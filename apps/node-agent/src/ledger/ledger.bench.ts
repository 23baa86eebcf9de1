// Ledger start-time benchmark (not a test). Writes a ledger of --commands done commands (default
// 100,000, spread evenly over the last --days days, default 90, every answer acknowledged), then, in
// fresh child processes, opens it: as before retention (no compaction), the first start with
// retention (reads and compacts), and the next start (reads the compacted file).
//
//   npx tsx apps/node-agent/src/ledger/ledger.bench.ts [--commands 100000] [--days 90]
//
// Prints one JSON line.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ledger } from './ledger.ts';

const DAY = 24 * 3600_000;
const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i === -1 ? def : Number(args[i + 1]);
};

if (args[0] === '--open') {
  // Child: open the ledger and report how long the constructor took.
  const [, dir, mode, nowMs] = args;
  const t0 = performance.now();
  const l = new Ledger(dir!, () => 'bench', { unchecked: true, now: () => Number(nowMs), ...(mode === 'old' ? { retention: false as const } : {}) });
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, ...l.stats(), rssMb: Math.round(process.memoryUsage().rss / 1e6) }));
  process.exit(0);
}

const commands = flag('--commands', 100_000);
const days = flag('--days', 90);
const now = Date.UTC(2026, 5, 1);
const dir = mkdtempSync(path.join(tmpdir(), 'bria-ledger-bench-'));
// Written directly (one fsync at the end) in the format the hub client produces: `received`, then
// `done` with the result; the result events were acknowledged (state.json), so events.jsonl is empty.
const fd = openSync(path.join(dir, 'commands.jsonl'), 'w', 0o600);
let buf = '';
for (let i = 0; i < commands; i++) {
  const at = now - days * DAY + Math.floor((i / commands) * days * DAY);
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const base = { id, command: 'deliver', sessionId: 'c0a80101-0000-4000-8000-000000000001', messageId: `m-${i}`, generation: 3 };
  buf += `${JSON.stringify({ ...base, receivedAt: at, status: 'received' })}\n`;
  buf += `${JSON.stringify({ ...base, receivedAt: at + 2000, status: 'done', doneAt: at + 2000, result: { ok: true, typed: true, delivery: 'accepted', messageId: `m-${i}`, nativeRef: `r-${i}` } })}\n`;
  if (buf.length > 1 << 20) {
    writeSync(fd, buf);
    buf = '';
  }
}
writeSync(fd, buf);
closeSync(fd);
writeFileSync(path.join(dir, 'state.json'), JSON.stringify({ ackedUpTo: commands, instanceId: 'bench' }));
writeFileSync(path.join(dir, 'events.jsonl'), '');
const bytesBefore = statSync(path.join(dir, 'commands.jsonl')).size;

const self = fileURLToPath(import.meta.url);
const open = (mode: 'old' | 'new') => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', self, '--open', dir, mode, String(now)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as { ms: number; commands: number; commandFileBytes: number; rssMb: number };
};
const runs = (mode: 'old') => [open(mode), open(mode), open(mode)];
const old = runs('old');
const first = open('new');
const next = [open('new'), open('new'), open('new')];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    bench: 'ledger-start',
    commands,
    days,
    bytesBefore,
    withoutRetention: {
      medianMs: Math.round(median(old.map((r) => r.ms))),
      runsMs: old.map((r) => Math.round(r.ms)),
      commands: old[0]!.commands,
      rssMb: old[0]!.rssMb,
    },
    firstStartCompacting: { ms: Math.round(first.ms), keptCommands: first.commands, bytesAfter: first.commandFileBytes, rssMb: first.rssMb },
    nextStart: {
      medianMs: Math.round(median(next.map((r) => r.ms))),
      runsMs: next.map((r) => Math.round(r.ms)),
      commands: next[0]!.commands,
      rssMb: next[0]!.rssMb,
    },
  }),
);
