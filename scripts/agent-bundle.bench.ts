import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { createDb } from '../packages/core/src/db/client.ts';
import { createNodeWithToken } from '../packages/core/src/db/repos/nodes.ts';
import { Hub } from '../packages/core/src/hub/server.ts';
import { installCommand } from '../packages/core/src/services/nodes/install-command.ts';
import { createTestDatabase } from '../packages/testkit/src/postgres.ts';
import { waitUntil } from '../packages/testkit/src/wait.ts';
import { buildAgentBundle } from './build-agent.ts';

/**
 * `npm run bench -- agent-bundle` (= `npx tsx scripts/agent-bundle.bench.ts --runs 5`): the
 * one-file agent's size and build time, and how long it takes from start to online against a
 * real hub (in this process) and Postgres:
 * - start → online: `node bria-agent.mjs --hub … --token-file …` copied alone into an empty folder
 *   with a fresh HOME, spawned → the hub has stored its hello (Node.connectedAt newer);
 * - install → online: the dashboard's whole one-line command pasted into bash (curl from the hub,
 *   SHA-256 check, token file, start) → the same row.
 * No CLI is installed for it (claude/codex absent), so the executor probe fails fast, as on a
 * computer without them; with them, their `--version` adds its own time.
 */
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;
const summary = (xs: number[]) => ({ p50: Math.round(pct(xs, 50)), max: Math.round(Math.max(...xs)) });

const out = mkdtempSync(path.join(tmpdir(), 'bria-bench-bundle-'));
const builds: number[] = [];
let bundle = await buildAgentBundle({ outDir: path.join(out, 'dist') });
for (let i = 0; i < 3; i++) {
  bundle = await buildAgentBundle({ outDir: path.join(out, 'dist') });
  builds.push(bundle.ms);
}
const gz = gzipSync(readFileSync(bundle.file)).length;

const tdb = await createTestDatabase();
const db = createDb(tdb.url, { max: 4 });
const hub = new Hub({
  db,
  databaseUrl: tdb.url,
  host: '127.0.0.1',
  port: 0,
  heartbeatMs: 10_000,
  log: pino({ level: 'silent' }),
  agentBundleDir: path.join(out, 'dist'),
});
await hub.start();
const hubUrl = `ws://127.0.0.1:${hub.port}/agent`;
const { nodeId, token } = await createNodeWithToken(db, { name: 'bench' });
const env = (home: string) => ({
  HOME: home,
  PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
  LANG: 'C.UTF-8',
  BRIA_CLAUDE_BIN: '/nonexistent/claude',
  BRIA_CODEX_BIN: '/nonexistent/codex',
  BRIA_TMUX_SOCKET: `bria-bench-${process.pid}`,
  LOG_LEVEL: 'warn',
});

async function timeToOnline(start: () => ChildProcess): Promise<number> {
  const before = (await db.node.findUniqueOrThrow({ where: { id: nodeId } })).connectedAt?.getTime() ?? 0;
  const t0 = performance.now();
  const child = start();
  await waitUntil(
    'online',
    async () => {
      const n = await db.node.findUniqueOrThrow({ where: { id: nodeId }, select: { online: true, connectedAt: true } });
      return n.online && (n.connectedAt?.getTime() ?? 0) > before;
    },
    60_000,
    10,
  );
  const ms = performance.now() - t0;
  const gone = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid!, 'SIGTERM');
  await gone;
  return ms;
}

const startMs: number[] = [];
const installMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const home = mkdtempSync(path.join(out, 'home-'));
  const folder = path.join(home, 'agent');
  mkdirSync(folder);
  copyFileSync(bundle.file, path.join(folder, 'bria-agent.mjs'));
  writeFileSync(path.join(folder, 'token'), `${token}\n`, { mode: 0o600 });
  startMs.push(
    await timeToOnline(() =>
      spawn(
        process.execPath,
        [path.join(folder, 'bria-agent.mjs'), '--hub', hubUrl, '--token-file', path.join(folder, 'token'), '--dir', path.join(folder, 'state')],
        { cwd: folder, env: env(home), stdio: 'ignore', detached: true },
      ),
    ),
  );
  const home2 = mkdtempSync(path.join(out, 'home-'));
  installMs.push(
    await timeToOnline(() => {
      const sh = spawn('bash', ['-s'], { cwd: home2, env: env(home2), stdio: ['pipe', 'ignore', 'ignore'], detached: true });
      sh.stdin!.end(`${installCommand({ hubUrl, bundle, token })}\n`);
      return sh;
    }),
  );
}
console.log(
  JSON.stringify({
    bench: 'agent-bundle',
    runs: RUNS,
    bytes: bundle.bytes,
    gzipBytes: gz,
    buildMs: summary(builds),
    startToOnlineMs: summary(startMs),
    installToOnlineMs: summary(installMs),
    version: bundle.version,
  }),
);
await hub.stop();
await db.$disconnect();
await tdb.drop();
rmSync(out, { recursive: true, force: true });
// The agents' tmux server outlives them by design (sessions survive an agent restart); the bench's
// own ends with it. It was left running with two control clients attached (session 21).
try {
  execFileSync('tmux', ['-L', `bria-bench-${process.pid}`, 'kill-server'], { stdio: 'ignore' });
} catch {
  // no server: no agent got as far as starting one
}
process.exit(0);
