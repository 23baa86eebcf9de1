/**
 * Desk ↔ phone latency (not a test): `npx tsx scripts/handoff.bench.ts [--runs 10] [--executors claude,codex]`.
 * The whole system (test Postgres, hub and engine in this process, a real node agent, the real pinned
 * CLIs against the mock models). Per run a CLI is begun by hand in a tmux server of the user's own
 * and given a first prompt; then
 * - listed: the CLI's journal gets its first line naming the folder (polled every 5 ms) → the row is
 *   returned by the open-sessions query the dashboard uses (`listOpenSessionsAcross`) with its desk
 *   process (polled every 10 ms; Telegram's /archive reads the same row). Goal p99 < 5 s;
 * - take-over: `continueHere` called → the session Ready in Bria (polled every 10 ms), split into the
 *   desk CLI's own exit (its pid gone, polled every 5 ms) and what follows it. Goal p99 < 5 s beyond
 *   the desk CLI's exit.
 * Prints one JSON line per executor.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isAlive } from '../apps/node-agent/src/executors/proc-tree.ts';
import * as services from '../packages/core/src/services/index.ts';
import { startDesk } from '../packages/testkit/src/desk.ts';
import { type Executor, startSystem } from '../packages/testkit/src/system.ts';
import { stats } from './bench-stats.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, executors: { type: 'string', default: 'claude,codex' } } });
const RUNS = Number(values.runs);
const EXECUTORS = values.executors.split(',') as Executor[];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  everyMs: number,
  ms = 120_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`bench wait timed out: ${what}`);
    await sleep(everyMs);
  }
}

function journalsUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

const sys = await startSystem({ executors: EXECUTORS, slowChunks: 2, slowChunkMs: 10 });
await sys.startAgent();
try {
  for (const executor of EXECUTORS) {
    const listed: number[] = [];
    const ready: number[] = [];
    const afterExit: number[] = [];
    const deskExit: number[] = [];
    const home =
      executor === 'claude'
        ? path.join(sys.cliEnv.CLAUDE_CONFIG_DIR ?? path.join(sys.home, '.claude'), 'projects')
        : path.join(sys.cliEnv.CODEX_HOME ?? path.join(sys.home, '.codex'), 'sessions');
    for (let i = 0; i < RUNS; i++) {
      const folder = sys.folder(`bench-${executor}-${i}-${Date.now()}`);
      const before = new Set(journalsUnder(home));
      const desk = await startDesk({ executor, folder, env: sys.cliEnv });
      await desk.type(`bench desk ${i}`);
      // The first journal line that names the folder: what discovery needs to enter a session.
      const firstLine = await until(
        'the first journal line',
        () => {
          for (const f of journalsUnder(home)) {
            if (before.has(f)) continue;
            if (statSync(f).size > 0 && readFileSync(f, 'utf8').includes(`"cwd":${JSON.stringify(folder)}`)) return Date.now();
          }
          return null;
        },
        5,
      );
      const row = await until('listed', async () => (await services.listOpenSessionsAcross(sys.deps, {})).find((s) => s.folder === folder && s.desk?.pid), 10);
      listed.push(Date.now() - firstLine);
      const pid = row.desk!.pid!;
      const t0 = Date.now();
      await services.continueHere(sys.deps, { sessionId: row.id, pid, source: 'web' });
      const exited = await until('desk exit', async () => (!(await isAlive(pid)) ? Date.now() : null), 5);
      await until('Ready', async () => (await sys.session(row.id)).state === 'Ready', 10);
      const t1 = Date.now();
      ready.push(t1 - t0);
      deskExit.push(exited - t0);
      afterExit.push(t1 - exited);
      await services.closeSession(sys.deps, { sessionId: row.id });
      await until('Archived', async () => (await sys.session(row.id)).state === 'Archived', 20);
      desk.end();
    }
    console.log(
      JSON.stringify({
        bench: 'handoff',
        executor,
        runs: RUNS,
        listedMs: stats(listed),
        continueToReadyMs: stats(ready),
        deskExitMs: stats(deskExit),
        readyAfterDeskExitMs: stats(afterExit),
        goals: { listedP99Ms: 5000, readyAfterDeskExitP99Ms: 5000 },
      }),
    );
  }
} finally {
  await sys.dispose();
}
// The private Postgres cluster of a standalone run is a child process that keeps the event loop
// alive (it is stopped on exit); like the other benches, end when done.
process.exit(0);
