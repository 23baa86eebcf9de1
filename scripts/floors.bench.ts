/**
 * Physical floors (not a test): `npx tsx scripts/floors.bench.ts [--samples 200]` (`npm run bench -- floors`).
 * What the machine itself costs on the hops Bria's paths are made of, measured in the same run as
 * those paths (issue 18), so each path's figure can be read beside what no code could beat here:
 * - tmux: one raw `set-buffer` + `paste-buffer` into a pane of a private server (`-L`), written to the
 *   same kind of control-mode client the agent keeps (`control`) and as one spawned tmux process
 *   (`spawn`, the agent's fallback). Timed to the command's reply, to the pane's process receiving
 *   the bytes (it stamps them with its own wall clock), and to the text in the pane's output stream
 *   (`pipe-pane`, read as the agent-latency bench does).
 * - inotify: append to a file (sync write in this process) → a bare `fs.watch` on its folder fires,
 *   and → the agent's own `JsonlTailer` delivers the line.
 * - Postgres: `SELECT 1` through Prisma over the `pg` pool (`createDb`, as Bria runs it), the same on
 *   the bare pool, and `NOTIFY` on one connection → the notification on a `LISTEN`ing one.
 * - node start: spawn `node -e ""` → exit (the floor under the agent bundle's start → online).
 * Prints one JSON line; raw samples go to bench-out/floors.json.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, type FSWatcher, mkdirSync, mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { JsonlTailer } from '../apps/node-agent/src/journal/jsonl-tailer.ts';
import { paneStream } from '../apps/node-agent/src/tmux/pane-stream.ts';
import { Tmux } from '../apps/node-agent/src/tmux/tmux.ts';
import { createDb, pgPoolOf } from '../packages/core/src/db/client.ts';
import { createTestDatabase } from '../packages/testkit/src/postgres.ts';
import { type Stats, stats } from './bench-stats.ts';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '200' }, 'node-starts': { type: 'string', default: '30' } } });
const N = Number(values.samples);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wall = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const gap = () => sleep(3 + Math.random() * 7);
const WARMUP = 10;

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`floors: no sign of ${what} after ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
const raw: Record<string, number[]> = {};
const dir = mkdtempSync(path.join(tmpdir(), 'bria-floors-'));

/** Runs `one` WARMUP + N times with a short random gap; keeps the last N samples of each named figure. */
async function sample(name: string, one: () => Promise<Record<string, number>>): Promise<Record<string, Stats>> {
  const got: Record<string, number[]> = {};
  for (let i = 0; i < WARMUP + N; i++) {
    const r = await one();
    if (i >= WARMUP) for (const [k, v] of Object.entries(r)) got[k] = [...(got[k] ?? []), v];
    await gap();
  }
  for (const [k, v] of Object.entries(got)) raw[`${name} ${k}`] = v;
  return Object.fromEntries(Object.entries(got).map(([k, v]) => [k, stats(v)]));
}

async function tmuxFloors() {
  const socketName = `bria-floors-${process.pid}`;
  const runDir = path.join(dir, 'tmux');
  const ctl = new Tmux({ socketName, runDir, control: true });
  const spawned = new Tmux({ socketName, runDir, control: false });
  // The pane's process: raw stdin, every chunk stamped with its wall clock and sent back over a unix
  // socket, and echoed so it reaches the pane's output stream.
  const sockPath = path.join(dir, 'pane.sock');
  const program = path.join(dir, 'pane.cjs');
  writeFileSync(
    program,
    `
const s = require('node:net').connect(process.argv[2]);
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  const at = performance.timeOrigin + performance.now();
  s.write(JSON.stringify({ at, text: d.toString('utf8') }) + '\\n');
  process.stdout.write(d);
});`,
  );
  const waiting = new Map<string, (at: number) => void>();
  let seen = '';
  let connected: () => void = () => undefined;
  const paneConnected = new Promise<void>((r) => (connected = r));
  const server = createServer((c) => {
    connected();
    let rest = '';
    c.setEncoding('utf8');
    c.on('data', (d: string) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) {
        const { at, text } = JSON.parse(l) as { at: number; text: string };
        seen = (seen + text).slice(-400);
        for (const [marker, done] of waiting) {
          if (!seen.includes(marker)) continue;
          waiting.delete(marker);
          done(at);
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(sockPath, r));
  server.unref();
  try {
    const pane = await ctl.newSession({
      name: 'floors',
      cwd: dir,
      command: [process.execPath, program, sockPath],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' },
    });
    await within(paneConnected, 5000, 'the pane process to connect');
    const stream = await paneStream(spawned, pane.paneId, path.join(dir, 'pane.out'));
    const paste = (tmux: Tmux) => async () => {
      const marker = `fl${randomUUID().slice(0, 8)}q`;
      const buffer = `floors-${marker}`;
      const received = new Promise<number>((r) => waiting.set(marker, r));
      const shown = stream.expect(marker);
      const t0 = performance.now();
      const w0 = wall();
      await tmux.sequence([
        ['set-buffer', '-b', buffer, '--', marker],
        ['paste-buffer', '-p', '-d', '-b', buffer, '-t', pane.paneId],
      ]);
      const replied = performance.now() - t0;
      const at = await within(received, 5000, `${marker} at the pane's process`);
      const drawn = await within(shown, 5000, `${marker} in the pane's output`);
      return { commandReturned: replied, processReceived: at - w0, paneOutput: drawn - t0 };
    };
    const control = await sample('tmux control', paste(ctl));
    const spawn1 = await sample('tmux spawn', paste(spawned));
    await stream.close();
    return { control, spawn: spawn1 };
  } finally {
    // kill-server leaves the socket file behind.
    const socketPath = (await ctl.run(['display-message', '-p', '#{socket_path}']).catch(() => '')).trim();
    await ctl.run(['kill-server']).catch(() => undefined);
    ctl.close();
    if (socketPath) rmSync(socketPath, { force: true });
  }
}

async function inotifyFloors() {
  const folder = path.join(dir, 'journal');
  mkdirSync(folder);
  const rawFile = path.join(folder, 'raw.jsonl');
  writeFileSync(rawFile, '');
  let wake: (() => void) | null = null;
  const watcher: FSWatcher = watch(folder, () => wake?.());
  const line = (i: number) => `${JSON.stringify({ type: 'bench', i, pad: 'x'.repeat(300) })}\n`;
  let i = 0;
  const fsWatch = await sample('inotify fs.watch', async () => {
    const woke = new Promise<void>((r) => (wake = r));
    const t0 = performance.now();
    appendFileSync(rawFile, line(i++));
    await woke;
    wake = null;
    return { wake: performance.now() - t0 };
  });
  watcher.close();
  const tailFile = path.join(folder, 'tail.jsonl');
  writeFileSync(tailFile, '');
  let delivered: (() => void) | null = null;
  const tailer = new JsonlTailer({ path: tailFile, onLines: () => delivered?.() });
  tailer.start();
  await sleep(100);
  const jsonlTailer = await sample('inotify JsonlTailer', async () => {
    const got = new Promise<void>((r) => (delivered = r));
    const t0 = performance.now();
    appendFileSync(tailFile, line(i++));
    await got;
    delivered = null;
    return { delivered: performance.now() - t0 };
  });
  tailer.stop();
  return { fsWatch: fsWatch.wake, jsonlTailer: jsonlTailer.delivered };
}

async function postgresFloors() {
  const tdb = await createTestDatabase({ migrate: false });
  const db = createDb(tdb.url, { max: 2 });
  const pool = pgPoolOf(db)!;
  const listener = new pg.Client({ connectionString: tdb.url });
  try {
    const prisma = await sample('postgres prisma', async () => {
      const t0 = performance.now();
      await db.$queryRaw`select 1`;
      return { select1: performance.now() - t0 };
    });
    const bare = await sample('postgres pg', async () => {
      const t0 = performance.now();
      await pool.query('select 1');
      return { select1: performance.now() - t0 };
    });
    await listener.connect();
    await listener.query('listen bria_floors');
    let heard: ((payload: string) => void) | null = null;
    listener.on('notification', (n) => heard?.(n.payload ?? ''));
    let k = 0;
    const notify = await sample('postgres notify', async () => {
      const payload = String(k++);
      const got = new Promise<void>((r) => (heard = (p) => p === payload && r()));
      const t0 = performance.now();
      await pool.query(`select pg_notify('bria_floors', $1)`, [payload]);
      await got;
      return { notifyToListener: performance.now() - t0 };
    });
    return { prismaSelect1: prisma.select1, pgSelect1: bare.select1, notifyToListener: notify.notifyToListener };
  } finally {
    await listener.end().catch(() => undefined);
    await db.$disconnect();
    await tdb.drop();
  }
}

async function nodeStartFloor() {
  const xs: number[] = [];
  for (let i = 0; i < Number(values['node-starts']); i++) {
    const t0 = performance.now();
    await new Promise((r) => spawn(process.execPath, ['-e', ''], { stdio: 'ignore' }).on('exit', r));
    xs.push(performance.now() - t0);
  }
  raw['node start'] = xs;
  return stats(xs);
}

try {
  const tmux = await tmuxFloors();
  const inotify = await inotifyFloors();
  const postgres = await postgresFloors();
  const nodeStart = await nodeStartFloor();
  console.log(JSON.stringify({ bench: 'floors', samples: N, unit: 'ms', tmuxPaste: tmux, inotify, postgres, nodeStart }));
  mkdirSync(path.join(root, 'bench-out'), { recursive: true });
  writeFileSync(path.join(root, 'bench-out', 'floors.json'), JSON.stringify({ bench: 'floors', unit: 'ms', at: new Date().toISOString(), samples: raw }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
