/**
 * Benchmark (not a test): the node agent's CPU while 20 sessions of the REAL CLIs stream answers
 * and every one of them is read for a draft (issue 31).
 *
 *   npx tsx apps/node-agent/src/draft/draft-stream.bench.ts [--claude 10] [--codex 10] [--seconds 60] [--chunk-ms 250]
 *
 * This process plays the agent: one `SessionHost` per session on one private tmux server, and one
 * `DraftWatch` per session wired as the agent wires it (commands/session-runtime.ts), its frames
 * counted instead of sent. The mock model servers run in their own process, so their CPU is not
 * counted; their SLOWLINES answer draws 40 lines, `--chunk-ms` apart. Over the window every session
 * answers one such message after another, so all 20 are streaming the whole time. From /proc: the
 * agent's own CPU, the CPU of the tmux clients it spawned and reaped (the per-pane followers are
 * control-mode children that end with each turn), the tmux server's, the CLIs'. Goal: the agent's
 * CPU below 5 % of one core. Prints one JSON line.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Draft } from '@bria/core/protocol';
import { claudeBin, codexBin, createCliHome } from '@bria/testkit/cli-homes';
import { claudeDriver } from '../executors/claude-driver.ts';
import { codexDriver } from '../executors/codex-driver.ts';
import { processTree } from '../executors/proc-tree.ts';
import { SessionHost } from '../executors/session-host.ts';
import { Tmux } from '../tmux/tmux.ts';
import { DraftWatch } from './draft-watch.ts';

const { values } = parseArgs({
  options: {
    claude: { type: 'string', default: '10' },
    codex: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '60' },
    'chunk-ms': { type: 'string', default: '250' },
  },
});
const SECONDS = Number(values.seconds);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const HZ = 100; // USER_HZ on Linux

/** utime+stime and cutime+cstime of one process, in seconds; 0 when it is gone. */
function cpu(pid: number | 'self'): { own: number; children: number } {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { own: (Number(f[11]) + Number(f[12])) / HZ, children: (Number(f[13]) + Number(f[14])) / HZ };
  } catch {
    return { own: 0, children: 0 };
  }
}
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

const root = await mkdtemp(join(tmpdir(), 'bria-draft-bench-'));
const work = join(root, 'work');
await mkdir(work);
const mocks = spawn(
  join(repo, 'node_modules/.bin/tsx'),
  [
    join(repo, 'packages/testkit/src/mock-models/main.ts'),
    '--anthropic-port',
    '0',
    '--openai-port',
    '0',
    '--slow-chunks',
    '40',
    '--slow-chunk-ms',
    values['chunk-ms'],
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const urls = await new Promise<{ anthropic: string; openai: string }>((res) =>
  createInterface({ input: mocks.stdout! }).once('line', (l) => res(JSON.parse(l))),
);
const { env } = await createCliHome({ root, trustedDirs: [work], anthropicUrl: urls.anthropic, openaiUrl: urls.openai });
const tmux = new Tmux({ socketName: `bria-draft-${process.pid}`, runDir: join(root, 'run') });
await tmux.ensureServer();

const kinds = [...Array<'claude'>(Number(values.claude)).fill('claude'), ...Array<'codex'>(Number(values.codex)).fill('codex')];
const sessions: { host: SessionHost; watch: DraftWatch; frames: number; bytes: number; turns: number; turnsWithDrafts: number }[] = [];
try {
  const t0 = Date.now();
  for (const [i, kind] of kinds.entries()) {
    const host = new SessionHost({ driver: kind === 'claude' ? claudeDriver : codexDriver, tmux, bin: kind === 'claude' ? claudeBin : codexBin, env });
    await host.start({ cwd: work, sessionName: `draft-${kind}-${i}` });
    const messageId = randomUUID();
    const r = await host.deliver({ messageId, text: `hello from streaming session ${i}` });
    if (!r.accepted) throw new Error(`session ${i}: ${r.reason}`);
    await host.waitFor((e) => e.type === 'completed' && e.messageId === messageId, 60_000);
    const s = { host, watch: null as unknown as DraftWatch, frames: 0, bytes: 0, turns: 0, turnsWithDrafts: 0 };
    s.watch = new DraftWatch({
      executor: kind,
      tmux,
      sessionId: randomUUID(),
      identity: () => host.identity(),
      generation: () => 1,
      send: (frame: Draft) => {
        s.frames += 1;
        s.bytes += JSON.stringify(frame).length;
        return true;
      },
      connection: () => 1,
      onError: (err) => process.stderr.write(`[draft-bench] session ${i}: ${err.message}\n`),
    });
    sessions.push(s);
  }
  const setupS = (Date.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 10_000)); // let start-up work of the CLIs die down

  const until = Date.now() + SECONDS * 1000;
  let failures = 0;
  const loop = async (s: (typeof sessions)[number], i: number) => {
    while (Date.now() < until) {
      const messageId = randomUUID();
      const text = `SLOWLINES stream bench ${i} turn ${s.turns + 1}`;
      const before = s.frames;
      s.watch.expect(messageId, text);
      try {
        const r = await s.host.deliver({ messageId, text });
        if (!r.accepted) throw new Error(`refused: ${r.reason}`);
        await s.host.waitFor((e) => e.type === 'completed' && e.messageId === messageId, 120_000);
      } catch (err) {
        // Counted and printed, never hidden: a turn that failed is not in the figures' turns.
        failures += 1;
        process.stderr.write(`[draft-bench] session ${i}: turn failed: ${(err as Error).message}\n`);
        s.watch.forget(messageId);
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      s.watch.forget(messageId);
      s.turns += 1;
      if (s.frames - before >= 3) s.turnsWithDrafts += 1;
    }
  };
  const serverPid = (await tmux.serverPid())!;
  const clis: number[] = [];
  for (const s of sessions) clis.push(...(await processTree(s.host.identity().panePid)));
  const sumCli = () => clis.reduce((a, p) => a + cpu(p).own, 0);
  const ctlPid = tmux.controlClientPid;
  const ctlCpu = () => (ctlPid ? cpu(ctlPid).own : 0);
  const before = { self: cpu('self'), server: cpu(serverPid).own, cli: sumCli(), ctl: ctlCpu(), at: performance.now() };
  let peakRss = rssMb();
  const rssTimer = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb());
  }, 1000);
  await Promise.all(sessions.map((s, i) => loop(s, i)));
  clearInterval(rssTimer);
  const secs = (performance.now() - before.at) / 1000;
  const after = { self: cpu('self'), server: cpu(serverPid).own, cli: sumCli(), ctl: ctlCpu() };
  const pct = (s: number) => Number(((s / secs) * 100).toFixed(2));
  const frames = sessions.reduce((a, s) => a + s.frames, 0);
  const turns = sessions.reduce((a, s) => a + s.turns, 0);
  const result = {
    bench: 'draft_stream',
    sessions: sessions.length,
    claude: Number(values.claude),
    codex: Number(values.codex),
    chunkMs: Number(values['chunk-ms']),
    windowS: Math.round(secs),
    setupS: Math.round(setupS),
    turns,
    turnsWithAtLeast3Drafts: sessions.reduce((a, s) => a + s.turnsWithDrafts, 0),
    failedTurns: failures,
    draftFrames: frames,
    draftFramesPerSessionPerS: Number((frames / sessions.length / secs).toFixed(2)),
    draftKbPerS: Number((sessions.reduce((a, s) => a + s.bytes, 0) / 1024 / secs).toFixed(1)),
    agentCpuPct: pct(after.self.own - before.self.own),
    agentTmuxClientsCpuPct: pct(after.self.children - before.self.children),
    tmuxControlClientCpuPct: pct(after.ctl - before.ctl),
    tmuxServerCpuPct: pct(after.server - before.server),
    clisCpuPct: pct(after.cli - before.cli),
    agentRssMb: Math.round(rssMb()),
    agentPeakRssMb: Math.round(peakRss),
    goal: 'agent CPU < 5 % of one core',
  };
  console.log(JSON.stringify(result));
} finally {
  for (const s of sessions) s.watch.close();
  const left: number[] = [];
  for (const p of await tmux.listPanes()) left.push(...(await processTree(p.panePid)));
  await tmux.killServer();
  for (const p of left) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  mocks.kill('SIGTERM');
  await rm(root, { recursive: true, force: true });
}
process.exit(0);
