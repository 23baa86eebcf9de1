/**
 * Benchmark (not a test): the node agent's idle cost with 20 open sessions of the REAL CLIs.
 *
 *   npx tsx apps/node-agent/src/executors/agent-idle.bench.ts [--claude 10] [--codex 10] [--seconds 60] [--layer proc|portable]
 *
 * This process plays the agent: it holds one `SessionHost` per session on one private tmux server
 * (health monitor, journal tailer). The mock model servers run in their own process so their CPU is
 * not counted. Each session answers one message first, so every journal is being tailed. Then,
 * over the window, from /proc: the agent's own CPU, the CPU of the tmux client processes it spawned
 * (reaped children) and of its long-lived tmux control-mode client, the tmux server's CPU, the CLIs' own CPU (every process of every pane), and the
 * agent's RSS. Goal: agent CPU ~0 %. `--layer` picks the agent's process layer (process-table.ts);
 * the portable layer's `ps` runs are reaped children, so their CPU is in `agentTmuxClientsCpuPct`.
 * Prints one JSON line.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { claudeBin, codexBin, createCliHome } from '@bria/testkit/cli-homes';
import { Tmux } from '../tmux/tmux.ts';
import { claudeDriver } from './claude-driver.ts';
import { codexDriver } from './codex-driver.ts';
import { probeHealth } from './health.ts';
import { processTree } from './proc-tree.ts';
import { PROCESS_LAYERS, type ProcessLayer, procStat, procStatSync, processTree as layerTree, useProcessLayer } from './process-table.ts';
import { SessionHost } from './session-host.ts';
import type { SessionIdentity } from './types.ts';

const { values } = parseArgs({
  options: {
    claude: { type: 'string', default: '10' },
    codex: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '60' },
    layer: { type: 'string', default: 'proc' },
  },
});
if (!PROCESS_LAYERS.includes(values.layer as ProcessLayer)) throw new Error(`--layer: one of ${PROCESS_LAYERS.join(', ')}`);
const layer = useProcessLayer(values.layer as ProcessLayer).layer;
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

class CountingTmux extends Tmux {
  calls = 0;
  // Every call goes through `sequence` (`run` is one command of it).
  override sequence(cmds: readonly (readonly string[])[], input?: string): Promise<string> {
    this.calls++;
    return super.sequence(cmds, input);
  }
}

const root = await mkdtemp(join(tmpdir(), 'bria-idle-bench-'));
const work = join(root, 'work');
await mkdir(work);
const mocks = spawn(
  join(repo, 'node_modules/.bin/tsx'),
  [join(repo, 'packages/testkit/src/mock-models/main.ts'), '--anthropic-port', '0', '--openai-port', '0'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const urls = await new Promise<{ anthropic: string; openai: string }>((res) =>
  createInterface({ input: mocks.stdout! }).once('line', (l) => res(JSON.parse(l))),
);
const { env } = await createCliHome({ root, trustedDirs: [work], anthropicUrl: urls.anthropic, openaiUrl: urls.openai });
const tmux = new CountingTmux({ socketName: `bria-idle-${process.pid}`, runDir: join(root, 'run') });
await tmux.ensureServer();

const hosts: SessionHost[] = [];
const kinds = [...Array<'claude'>(Number(values.claude)).fill('claude'), ...Array<'codex'>(Number(values.codex)).fill('codex')];
try {
  const t0 = Date.now();
  for (const [i, kind] of kinds.entries()) {
    const host = new SessionHost({ driver: kind === 'claude' ? claudeDriver : codexDriver, tmux, bin: kind === 'claude' ? claudeBin : codexBin, env });
    await host.start({ cwd: work, sessionName: `idle-${kind}-${i}` });
    const messageId = randomUUID();
    const r = await host.deliver({ messageId, text: `hello from idle session ${i}` });
    if (!r.accepted) throw new Error(`session ${i}: ${r.reason}`);
    await host.waitFor((e) => e.type === 'completed' && e.messageId === messageId, 30_000);
    hosts.push(host);
  }
  const setupS = (Date.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 10_000)); // let start-up work of the CLIs die down
  const serverPid = (await tmux.serverPid())!;
  const clis: number[] = [];
  for (const h of hosts) clis.push(...(await processTree(h.identity().panePid)));
  const sumCli = () => clis.reduce((a, p) => a + cpu(p).own, 0);
  // The control-mode client is a long-lived child: its CPU is not in the reaped children's figure.
  const ctlPid = tmux.controlClientPid;
  const ctlCpu = () => (ctlPid ? cpu(ctlPid).own : 0);
  const before = { self: cpu('self'), server: cpu(serverPid).own, cli: sumCli(), ctl: ctlCpu(), calls: tmux.calls, at: performance.now() };
  let peakRss = rssMb();
  const until = Date.now() + SECONDS * 1000;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000));
    peakRss = Math.max(peakRss, rssMb());
  }
  const secs = (performance.now() - before.at) / 1000;
  const after = { self: cpu('self'), server: cpu(serverPid).own, cli: sumCli(), ctl: ctlCpu(), calls: tmux.calls };
  const pct = (s: number, over = secs) => Number(((s / over) * 100).toFixed(2));
  // Where the agent's time goes: the CPU one health probe (one tmux call plus /proc reads) costs
  // this process, then the same process with only the journal tailers running, then with nothing.
  // The agent's own CPU per call, and its reaped children's (tmux clients, `ps`), and the wall time.
  const childMs: Record<string, number> = {};
  const wallMs: Record<string, number> = {};
  const cpuPerCall = async (name: string, fn: (id: SessionIdentity) => Promise<unknown>) => {
    const u0 = process.cpuUsage();
    const c0 = cpu('self').children;
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) await fn(hosts[i % hosts.length]!.identity());
    wallMs[name] = Number(((performance.now() - t0) / 100).toFixed(2));
    childMs[name] = Number((((cpu('self').children - c0) * 1000) / 100).toFixed(2));
    const u1 = process.cpuUsage(u0);
    return Number(((u1.user + u1.system) / 1000 / 100).toFixed(2));
  };
  const perCallMs = {
    healthProbe: await cpuPerCall('healthProbe', (id) => probeHealth(tmux, id)),
    tmuxPaneInfo: await cpuPerCall('tmuxPaneInfo', (id) => tmux.paneInfo(id.paneId)),
    procStat: await cpuPerCall('procStat', (id) => procStat(id.cliPid)),
    procStatSync: await cpuPerCall('procStatSync', async (id) => procStatSync(id.cliPid)),
    processTree: await cpuPerCall('processTree', (id) => layerTree(id.panePid)),
  };
  const phaseS = Math.min(SECONDS, 20);
  const phase = async () => {
    const c0 = cpu('self').own;
    const t = performance.now();
    await new Promise((r) => setTimeout(r, phaseS * 1000));
    return pct(cpu('self').own - c0, (performance.now() - t) / 1000);
  };
  for (const h of hosts) (h as unknown as { stopMonitor(): void }).stopMonitor();
  const tailersOnlyPct = await phase();
  for (const h of hosts) h.detach();
  const detachedPct = await phase();
  const result = {
    bench: 'agent_idle',
    sessions: hosts.length,
    claude: Number(values.claude),
    codex: Number(values.codex),
    windowS: Math.round(secs),
    setupS: Math.round(setupS),
    agentCpuPct: pct(after.self.own - before.self.own),
    agentTmuxClientsCpuPct: pct(after.self.children - before.self.children),
    tmuxControlClientCpuPct: pct(after.ctl - before.ctl),
    tmuxControlClient: ctlPid !== undefined,
    tmuxServerCpuPct: pct(after.server - before.server),
    clisCpuPct: pct(after.cli - before.cli),
    cliProcesses: clis.length,
    tmuxCallsPerS: Number(((after.calls - before.calls) / secs).toFixed(1)),
    agentRssMb: Math.round(rssMb()),
    agentPeakRssMb: Math.round(peakRss),
    agentHeapUsedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    agentCpuPerCallMs: perCallMs,
    childrenCpuPerCallMs: childMs,
    wallPerCallMs: wallMs,
    processLayer: layer,
    agentTailersOnlyCpuPct: tailersOnlyPct,
    agentDetachedCpuPct: detachedPct,
    phaseS,
    goal: 'agent CPU ~0 %',
  };
  console.log(JSON.stringify(result));
} finally {
  // The hosts are detached (or never got going), so the panes go with the server; leftovers are killed.
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
