/**
 * Streamed-answer latency (issue 31; not a test): `npx tsx scripts/stream-latency.bench.ts [--lines 40]`.
 * A whole Bria on this machine (testkit `startSystem`: test Postgres, hub, engine, the real agent in
 * a child process, the real pinned CLIs against the mock model streaming one SLOWLINES line every
 * 250 ms). Per answer line, the clock runs from the moment tmux hands the line's text to the pane's
 * output (`pipe-pane`, read with inotify: the **tmux floor** of anything that follows the pane) to the
 * moment a draft holding it arrives at a dashboard process's `ChangeFeed` (agent screen read →
 * `draft` frame → hub → `NOTIFY bria_draft` → LISTEN). Not in it: the web process's SSE hop and the
 * browser's rendering (e2e/tests/stream.spec.ts shows the drafts growing in Chromium). The second
 * figure is the floor of one screen read: a `capture-pane` round trip over tmux control mode.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { paneStream } from '../apps/node-agent/src/tmux/pane-stream.ts';
import { Tmux } from '../apps/node-agent/src/tmux/tmux.ts';
import { ChangeFeed } from '../packages/core/src/db/repos/change-feed.ts';
import { type Executor, startSystem } from '../packages/testkit/src/system.ts';

const { values } = parseArgs({ options: { lines: { type: 'string', default: '40' } } });
const LINES = Number(values.lines);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;
const summary = (xs: number[]) => ({ n: xs.length, p50: Number(pct(xs, 50).toFixed(1)), p99: Number(pct(xs, 99).toFixed(1)), max: Number(Math.max(...xs).toFixed(1)) });

const sys = await startSystem({ slowChunks: LINES, slowChunkMs: 250 });
await sys.startAgent();
const feed = new ChangeFeed(sys.databaseUrl);
await feed.ensure();
const dir = mkdtempSync(path.join(tmpdir(), 'bria-stream-bench-'));
const tmux = new Tmux({ socketName: sys.tmuxSocket, runDir: dir });
try {
  for (const executor of ['claude', 'codex'] as Executor[]) {
    const s = await sys.createSession(executor, sys.folder(`bench-${executor}-${Date.now()}`));
    await sys.waitState(s.id, 'Ready', 90_000);
    const id = await sys.identity(s.id);
    const pane = await paneStream(tmux, id.paneId, path.join(dir, `${executor}.out`));
    const seenAt = new Map<number, number>();
    const stop = new AbortController();
    const reading = (async () => {
      for await (const d of feed.drafts(s.id, stop.signal)) {
        const t = performance.now();
        for (const m of d.text.matchAll(/line (\d+) of \d+ of the slow answer/g)) if (!seenAt.has(Number(m[1]))) seenAt.set(Number(m[1]), t);
      }
    })();
    // The pane's times: each line's text as tmux hands it out (expect() re-arms for the next line).
    const paneAt = new Map<number, number>();
    await sys.send(s.id, `SLOWLINES bench ${executor} ${Date.now()}`);
    for (let k = 2; k <= LINES; k++) paneAt.set(k, await pane.expect(`line ${k} of ${LINES} of the slow answer`));
    await sys.waitMessages(s.id, (st) => st.every((x) => x === 'completed'), 60_000);
    stop.abort();
    await reading;
    await pane.close();
    const lat = [...paneAt].filter(([k]) => seenAt.has(k)).map(([k, t]) => seenAt.get(k)! - t);
    // The floor of one screen read: capture-pane over the control client.
    const reads: number[] = [];
    for (let i = 0; i < 100; i++) {
      const t0 = performance.now();
      await tmux.capture(id.paneId, { scrollback: 400 });
      reads.push(performance.now() - t0);
    }
    console.log(
      JSON.stringify({
        bench: 'stream',
        executor,
        paneToFeedMs: summary(lat),
        linesSeenAsDraft: `${lat.length}/${paneAt.size}`,
        captureRoundTripMs: summary(reads),
      }),
    );
    await sys.close(s.id);
  }
} finally {
  tmux.close();
  await feed.close();
  await sys.dispose();
  rmSync(dir, { recursive: true, force: true });
}
