/**
 * Benchmark (not a test): an answer's text drawn in the CLI's pane → the same text visible on the
 * session page as the draft (issue 31), with the real pinned CLIs against the mock models (SLOWLINES:
 * 40 lines, 250 ms apart), Chromium, the production dashboard, the hub and a node agent
 * (support/serve.ts).
 *
 *   npx playwright test -c e2e/playwright.bench.config.ts   (or `npm run bench -- stream`)
 *   env: BRIA_STREAM_ANSWERS (per executor, default 4), BRIA_BENCH_OUT (JSON file of the results)
 *
 * Per line "line N of 40" of every answer:
 * - pane: the moment this process, following the pane's output as its own tmux control-mode client
 *   (the agent's draft reader is pushed the same `%output`), first finds the line (escapes removed);
 * - browser: the moment a MutationObserver in the page first finds it in the draft's text, on the
 *   page's own clock (`performance.timeOrigin + performance.now()`; the same machine's wall clock).
 * Lines that only ever reached the page in the final (drawn after the turn's last draft) are counted
 * apart. The tmux floor next to it: text written to a bare pane's terminal → seen by a control-mode
 * client of that pane, the least any pane → anywhere path can take. Writes one JSON line per path.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '@bria/core/db';
import { closeSession, createSession } from '@bria/core/services';
import { PaneFollower } from '../../apps/node-agent/src/tmux/pane-follow.ts';
import { Tmux } from '../../apps/node-agent/src/tmux/tmux.ts';
import { cliPaneOf } from '../support/state.ts';
import { expect, test } from '../tests/fixtures.ts';

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences
const ESC = /\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\-_=>]/g;
/** One line of a SLOWLINES answer, whitespace removed. */
const LINE = /line(\d+)of40oftheslowanswer/g;
const ANSWERS = Number(process.env.BRIA_STREAM_ANSWERS ?? 4);
const OUT = process.env.BRIA_BENCH_OUT ?? path.join(import.meta.dirname, '../.tmp/stream-bench.jsonl');
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;
const stats = (xs: number[]) => ({
  n: xs.length,
  p50: Number(pct(xs, 50).toFixed(1)),
  p90: Number(pct(xs, 90).toFixed(1)),
  p99: Number(pct(xs, 99).toFixed(1)),
  max: Number(Math.max(...xs).toFixed(1)),
});
const results: string[] = [];
function report(line: Record<string, unknown>): void {
  const s = JSON.stringify(line);
  results.push(s);
  console.log(s);
}

let db: Db;
test.beforeAll(() => {
  mkdirSync(path.dirname(OUT), { recursive: true });
  writeFileSync(OUT, '');
});
test.afterAll(async () => {
  writeFileSync(OUT, `${results.join('\n')}\n`);
  await db?.$disconnect();
});

/**
 * Records when each `line N of 40` first shows on a pane's screen (Date.now()). Every output tmux
 * pushes for the pane starts a screen read (one at a time, as the agent's draft reader does); a line
 * first found by a read is dated to the EARLIEST output since the previous read began, so the figure
 * is never flattered by a slow read. Whitespace is left out of the matching: a CLI wraps a long
 * paragraph, and Codex redraws only the cells that changed.
 */
async function followLines(socketName: string, sessionName: string, paneId: string) {
  const seen = new Map<number, number>();
  const tmux = new Tmux({ socketName, runDir: mkdtempSync(path.join(tmpdir(), 'bria-stream-bench-')) });
  let since: number | null = null;
  let reading = false;
  const read = async () => {
    if (reading) return;
    reading = true;
    try {
      while (since !== null) {
        const at = since;
        since = null;
        const screen = await tmux.capture(paneId, { scrollback: 400 }).catch(() => '');
        for (const m of screen.replace(/\s+/g, '').matchAll(LINE)) {
          const n = Number(m[1]);
          if (!seen.has(n)) seen.set(n, at);
        }
      }
    } finally {
      reading = false;
    }
  };
  const f = await PaneFollower.open({
    bin: 'tmux',
    socketName,
    sessionName,
    paneId,
    onOutput: () => {
      since ??= Date.now();
      void read();
    },
  });
  if (!f) throw new Error(`no tmux session ${sessionName} on ${socketName}`);
  return {
    seen,
    close: () => {
      f.close();
      tmux.close();
    },
  };
}

test('tmux floor: text written to a pane → seen by a control-mode client', async () => {
  const socket = `bria-floor-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' }).trim();
  tmux('new-session', '-d', '-s', 'floor', '-x', '120', '-y', '40', 'sleep 600');
  try {
    const [paneId, tty] = tmux('display-message', '-p', '-t', 'floor', '#{pane_id} #{pane_tty}').split(' ');
    let want: { marker: string; resolve: (t: number) => void } | null = null;
    let tail = '';
    const f = await PaneFollower.open({
      bin: 'tmux',
      socketName: socket,
      sessionName: 'floor',
      paneId: paneId!,
      onOutput: (data) => {
        const at = Date.now();
        tail = (tail + data).slice(-2000);
        if (want && tail.replace(ESC, '').includes(want.marker)) {
          want.resolve(at);
          want = null;
        }
      },
    });
    expect(f).not.toBeNull();
    const fd = openSync(tty!, 'w');
    const samples: number[] = [];
    try {
      for (let i = 0; i < 200; i++) {
        const marker = `floor-${i}-${Date.now()}`;
        const seen = new Promise<number>((resolve) => {
          want = { marker, resolve };
        });
        const t0 = Date.now();
        writeSync(fd, `${marker}\r\n`);
        samples.push((await seen) - t0);
      }
    } finally {
      closeSync(fd);
      f!.close();
    }
    report({ bench: 'stream_floor', path: 'tmux: written to a pane → control-mode client', unit: 'ms', ...stats(samples) });
  } finally {
    execFileSync('tmux', ['-L', socket, 'kill-server']);
  }
});

for (const executor of ['claude', 'codex'] as const) {
  test(`${executor}: pane → draft visible in the browser`, async ({ signedInPage: page, state }) => {
    db ??= createDb(state.databaseUrl, { max: 2 });
    const node = await db.node.findFirstOrThrow({ where: { isLocal: true } });
    const latencies: number[] = [];
    let onlyInFinal = 0;
    /** [answer, line, ms or null when only the final showed it], for reading the figures. */
    const perLine: [number, number, number | null][] = [];
    let drawn = 0;
    // One session per answer: every SLOWLINES answer has the same lines, so a second answer in one
    // session would be found on the screen already.
    for (let a = 0; a < ANSWERS; a++) {
      const folder = path.join(state.workDir, `stream-bench-${executor}-${a}-${Date.now()}`);
      mkdirSync(folder, { recursive: true });
      const s = await createSession({ db }, { nodeId: node.id, executor, folder });
      await page.goto(`/sessions/${s.id}`);
      await expect(page.getByTestId('session-state')).toHaveAttribute('data-state', 'Ready', { timeout: 120_000 });
      const cli = cliPaneOf(s.id);
      expect(cli).not.toBeNull();
      const pane = await followLines(state.tmuxSocket, cli!.sessionName, cli!.paneId);
      try {
        // In the page: when each line first shows in the draft, on the page's own clock.
        await page.evaluate(() => {
          const w = window as unknown as { __lines: Record<number, number> };
          w.__lines = {};
          new MutationObserver(() => {
            const text = document.querySelector('[data-testid="draft"] .plain')?.textContent ?? '';
            const at = performance.timeOrigin + performance.now();
            for (const m of text.replace(/\s+/g, '').matchAll(/line(\d+)of40oftheslowanswer/g)) w.__lines[Number(m[1])] ??= at;
          }).observe(document.body, { subtree: true, childList: true, characterData: true });
        });
        const marker = `SLOWLINES stream bench ${executor} ${a} ${Date.now()}`;
        await page.getByTestId('message-input').fill(marker);
        await page.getByRole('button', { name: 'Send' }).click();
        await expect(page.getByTestId('final').last()).toContainText('line 40 of 40', { timeout: 180_000 });
        const inPage = await page.evaluate(() => (window as unknown as { __lines: Record<number, number> }).__lines);
        for (const [n, paneAt] of pane.seen) {
          drawn += 1;
          const pageAt = inPage[n];
          perLine.push([a, n, pageAt === undefined ? null : Math.round(pageAt - paneAt)]);
          if (pageAt === undefined) onlyInFinal += 1;
          else latencies.push(pageAt - paneAt);
        }
      } finally {
        pane.close();
      }
      await closeSession({ db }, { sessionId: s.id }).catch(() => undefined);
    }
    report({
      bench: 'stream_latency',
      executor,
      path: 'line drawn in the pane → visible in the browser as the draft',
      unit: 'ms',
      answers: ANSWERS,
      linesDrawn: drawn,
      linesOnlyInFinal: onlyInFinal,
      ...stats(latencies),
      goal: 'p99 < 150 ms on a quiet machine',
      perLine,
    });
    expect(latencies.length).toBeGreaterThan(0);
  });
}
