/**
 * Benchmark (not a test): latency of the node agent's executor layer with the REAL CLIs (Claude Code
 * and Codex) against the local mock model servers, each in a private tmux server.
 *
 *   npx tsx apps/node-agent/src/executors/agent-latency.bench.ts [--messages 100] [--executors claude,codex] [--control false]
 *
 * Per executor, one message at a time (the next only after the previous turn completed):
 *  (a) `SessionHost.deliver` called → the tmux unit holding `paste-buffer` returned (the paste is in the pane's
 *      input), and → the CLI drew the text (first sight of a unique marker in the pane's output
 *      stream, taken with `pipe-pane`, i.e. the bytes tmux itself parses). Goal p99 < 50 ms.
 *  (b) journal record → host event, for the `accepted` (user prompt record) and `completed`
 *      (turn-end record) events: from the record's own `timestamp` (includes the CLI's own delay
 *      between stamping and writing), and from the moment an independent inotify watcher in this
 *      process saw the file reach the record's end (Bria's own part). Goal p99 < 100 ms.
 * The first message of each executor is a warm-up (Codex creates its journal with it) and is left out.
 * Prints one JSON line per figure group; raw samples go to bench-out/agent-latency.json.
 */
import { randomUUID } from 'node:crypto';
import { watch } from 'node:fs';
import { mkdir, open, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { claudeBin, codexBin } from '@bria/testkit/cli-homes';
import { paneStream } from '../tmux/pane-stream.ts';
import { Tmux } from '../tmux/tmux.ts';
import { claudeDriver } from './claude-driver.ts';
import { codexDriver } from './codex-driver.ts';
import { SessionHost } from './session-host.ts';
import { createRig, is } from '../../test-support/test-rig.ts';
import type { HostEvent } from './types.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '100' },
    executors: { type: 'string', default: 'claude,codex' },
    control: { type: 'string', default: 'true' },
  },
});
// --control false: every tmux call spawns a tmux client (the fallback path), for comparison.
const CONTROL = values.control !== 'false';
const MESSAGES = Number(values.messages);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const wall = () => performance.timeOrigin + performance.now();

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n: s.length, min: r(s[0] ?? Number.NaN), median: r(at(50)), p90: r(at(90)), p99: r(at(99)), max: r(s.at(-1) ?? Number.NaN) };
}

/** The real Tmux adapter, plus start/end of every call (to tell where a paste's time goes). */
class TimedTmux extends Tmux {
  lastPaste = 0;
  calls: { cmd: string; start: number; end: number }[] = [];
  // Every call goes through `sequence` (`run` is one command of it); a paste is one sequence.
  override async sequence(cmds: readonly (readonly string[])[], input?: string): Promise<string> {
    const start = performance.now();
    const out = await super.sequence(cmds, input);
    const end = performance.now();
    this.calls.push({ cmd: cmds.map((c) => c[0]).join('+'), start, end });
    if (this.calls.length > 1000) this.calls.splice(0, 500);
    if (cmds.some((c) => c.includes('if-shell') || c[0] === 'paste-buffer')) this.lastPaste = end;
    return out;
  }
}

/** Sizes of a journal over time, seen by our own watcher (not the host's tailer). */
function sizeWatcher(path: string) {
  const seen: { at: number; size: number }[] = [];
  const w = watch(
    dirname(path),
    () =>
      void stat(path).then(
        (s) => seen.push({ at: wall(), size: s.size }),
        () => undefined,
      ),
  );
  return { reachedAt: (end: number) => seen.find((x) => x.size >= end)?.at ?? null, close: () => w.close() };
}

async function recordTimestamp(path: string, offset: number, end: number): Promise<number | null> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(end - offset);
    await fh.read(buf, 0, buf.length, offset);
    const ts = (JSON.parse(buf.toString('utf8')) as { timestamp?: string }).timestamp;
    return ts ? Date.parse(ts) : null;
  } finally {
    await fh.close();
  }
}

async function runExecutor(kind: 'claude' | 'codex', raw: Record<string, number[]>) {
  const rig = await createRig(kind);
  try {
    const tmux = new TimedTmux({ socketName: rig.tmux.socketName, runDir: rig.tmux.runDir, control: CONTROL });
    const host = new SessionHost({ driver: kind === 'claude' ? claudeDriver : codexDriver, tmux, bin: kind === 'claude' ? claudeBin : codexBin, env: rig.env });
    const evAt = new Map<HostEvent, number>();
    host.on((e) => evAt.set(e, wall()));
    const id = await host.start({ cwd: rig.work, sessionName: `bench-${kind}` });
    const pane = await paneStream(tmux, id.paneId, join(rig.root, 'pane.out'));
    const phases: Record<string, number[]> = { beforeFirstTmuxCall: [] };
    const s = {
      paste: [] as number[],
      shown: [] as number[],
      acceptTs: [] as number[],
      acceptWrite: [] as number[],
      doneTs: [] as number[],
      doneWrite: [] as number[],
    };
    let sizes: ReturnType<typeof sizeWatcher> | null = null;
    for (let i = 0; i <= MESSAGES; i++) {
      const marker = `mk${String(i).padStart(4, '0')}q${randomUUID().slice(0, 6)}`;
      const messageId = randomUUID();
      const shown = pane.expect(marker);
      const t0 = performance.now();
      const r = await host.deliver({ messageId, text: `benchmark message ${marker}` });
      if (!r.accepted) throw new Error(`${kind}: message ${i} not accepted: ${r.reason}`);
      const shownAt = await Promise.race([shown, new Promise<number>((res) => setTimeout(() => res(Number.NaN), 5000))]);
      const completed = await host.waitFor(is('completed', messageId), 30_000);
      const accepted = host.events.find(is('accepted', messageId))!;
      const journal = host.identity().journalPath!;
      sizes ??= sizeWatcher(journal);
      if (i === 0) continue;
      s.paste.push(tmux.lastPaste - t0);
      // Calls of this delivery up to the paste: one unit of capture-pane + set-buffer (or load-buffer) + paste-buffer.
      const mine = tmux.calls.filter((c) => c.start >= t0 && c.end <= tmux.lastPaste);
      if (mine[0]) phases.beforeFirstTmuxCall!.push(mine[0].start - t0);
      for (const c of mine) {
        phases[c.cmd] ??= [];
        phases[c.cmd]!.push(c.end - c.start);
      }
      if (!Number.isNaN(shownAt)) s.shown.push(shownAt - t0);
      for (const [ev, tsArr, wrArr] of [
        [accepted, s.acceptTs, s.acceptWrite],
        [completed, s.doneTs, s.doneWrite],
      ] as const) {
        const { offset, end } = ev.evidence as { offset: number; end: number };
        const ts = await recordTimestamp(journal, offset, end);
        if (ts !== null) tsArr.push(evAt.get(ev)! - ts);
        const w = sizes.reachedAt(end);
        if (w !== null) wrArr.push(evAt.get(ev)! - w);
      }
    }
    sizes?.close();
    await pane.close();
    await host.close();
    for (const [k, v] of Object.entries(s)) raw[`${kind}/${k}`] = v;
    console.log(
      JSON.stringify({
        bench: 'agent_paste',
        executor: kind,
        messages: MESSAGES,
        tmuxControlClient: CONTROL,
        deliverToPasteCmdMs: stats(s.paste),
        deliverToPaneShownMs: stats(s.shown),
        missedShown: MESSAGES - s.shown.length,
        pasteBreakdownMedianMs: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, stats(v).median])),
        goalP99Ms: 50,
        pass: stats(s.paste).p99 < 50 && stats(s.shown).p99 < 50,
      }),
    );
    console.log(
      JSON.stringify({
        bench: 'agent_journal_real',
        executor: kind,
        messages: MESSAGES,
        acceptedFromRecordTsMs: stats(s.acceptTs),
        acceptedFromWriteMs: stats(s.acceptWrite),
        completedFromRecordTsMs: stats(s.doneTs),
        completedFromWriteMs: stats(s.doneWrite),
        goalP99Ms: 100,
        pass: stats(s.acceptWrite).p99 < 100 && stats(s.doneWrite).p99 < 100,
      }),
    );
  } finally {
    await rig.dispose();
  }
}

const raw: Record<string, number[]> = {};
for (const kind of values.executors.split(',') as ('claude' | 'codex')[]) await runExecutor(kind, raw);
await mkdir(join(root, 'bench-out'), { recursive: true });
await writeFile(
  join(root, 'bench-out', 'agent-latency.json'),
  JSON.stringify({ bench: 'agent-latency', unit: 'ms', at: new Date().toISOString(), samples: raw }),
);
process.exit(0);
