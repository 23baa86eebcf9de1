// Discovery benchmark (not a test). Builds a synthetic store of Claude and Codex journals under
// /tmp (5,000 + 5,000 files, about 2 GB at --scale 1), then, in a fresh child process so the
// numbers are not inflated by building the store, measures: first scan, re-scan after one file
// grew, re-scan with nothing changed, a restart from the state file, and peak RSS.
//
//   npx tsx apps/node-agent/src/discovery/discovery.bench.ts [--scale 0.1] [--dir /tmp/x] [--rebuild]
//
// Prints one JSON line. Goals: first scan < 10 s, re-scan < 200 ms, peak RSS < 150 MB.

import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DiscoveryIndex } from './discovery-index.ts';
import { STATE_FILE } from './index-state.ts';
import { appendCodexTitle, claudeLines, type Turn, writeClaudeSession, writeCodexSession } from './synthetic-store.ts';

interface Manifest {
  scale: number;
  claudeFiles: number;
  codexFiles: number;
  totalBytes: number;
  appendTarget: string;
}

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};

// Deterministic PRNG so every run builds the same store.
let seed = 0x2545f491;
function random(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x1_0000_0000;
}
function gaussian(): number {
  return Math.sqrt(-2 * Math.log(random() || 1e-9)) * Math.cos(2 * Math.PI * random());
}
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** Journal sizes are heavy-tailed: median about 100 KB, mean about 200 KB, a few of many MB. */
function sessionTurns(i: number, startMs: number): Turn[] {
  const target = Math.min(20 << 20, Math.exp(Math.log(97_000) + 1.2 * gaussian()));
  const count = Math.max(1, Math.min(200, Math.round(target / 12_000)));
  const perTurn = Math.max(200, Math.round(target / count) - 900);
  return Array.from({ length: count }, (_, t) => ({
    prompt: `session ${i} turn ${t}: please look at the failing test and fix it`,
    reply: `Done with turn ${t}. ${'The change is small. '.repeat(1 + (t % 20))}`,
    at: new Date(startMs + t * 90_000).toISOString(),
    toolBytes: perTurn,
  }));
}

function build(dir: string, scale: number): Manifest {
  rmSync(dir, { recursive: true, force: true });
  const claudeHome = join(dir, '.claude');
  const codexHome = join(dir, '.codex');
  const perExecutor = Math.max(1, Math.round(5000 * scale));
  const day0 = Date.parse('2026-06-01T08:00:00.000Z');
  let appendTarget = '';
  for (let i = 0; i < perExecutor; i++) {
    const start = day0 + i * 47 * 60_000;
    const file = writeClaudeSession(claudeHome, {
      sessionId: `${hex(i, 8)}-1b2c-4d5e-8f90-${hex(i * 7919, 12)}`,
      cwd: `/home/dev/projects/repo-${i % 150}`,
      turns: sessionTurns(i, start),
      aiTitle: `Fix failing test ${i}`,
      firstTurnOutOfOrder: i % 5 === 0,
    });
    if (i === 0) appendTarget = file;
    const id = `01a2${hex(i, 4)}-d848-7b63-9a2f-${hex(i * 104729, 12)}`;
    writeCodexSession(codexHome, {
      id,
      cwd: `/home/dev/projects/repo-${i % 150}`,
      startedAt: new Date(start).toISOString(),
      turns: sessionTurns(i + 1, start),
    });
    appendCodexTitle(codexHome, id, `Codex task ${i}`, new Date(start).toISOString());
  }
  const du = spawnSync('du', ['-sb', dir], { encoding: 'utf8' });
  const manifest: Manifest = { scale, claudeFiles: perExecutor, codexFiles: perExecutor, totalBytes: Number.parseInt(du.stdout, 10), appendTarget };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return manifest;
}

const rssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function measure(dir: string, stateDir: string): Promise<Record<string, unknown>> {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const claudeHome = join(dir, '.claude');
  const codexHome = join(dir, '.codex');
  const baselineRssMB = rssMB();
  let maxLoopBlockMs = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    maxLoopBlockMs = Math.max(maxLoopBlockMs, now - last - 5);
    last = now;
  }, 5);

  const index = new DiscoveryIndex({ claudeHome, codexHome, stateDir });
  let t = performance.now();
  const cpu = process.cpuUsage();
  const first = await index.scan();
  const firstScanMs = performance.now() - t;
  const firstScanCpu = process.cpuUsage(cpu);
  t = performance.now();
  index.save();
  const saveMs = performance.now() - t;

  t = performance.now();
  const idle = await index.scan();
  const idleRescanMs = performance.now() - t;

  const turn: Turn = { prompt: 'one more thing', reply: 'ok', at: new Date().toISOString(), toolBytes: 4000 };
  appendFileSync(
    manifest.appendTarget,
    `${claudeLines({ sessionId: 'x', cwd: '/x', turns: [turn] })
      .slice(2)
      .join('\n')}\n`,
  );
  t = performance.now();
  const changed = await index.scan();
  const rescanMs = performance.now() - t;
  t = performance.now();
  index.save();
  const saveAfterChangeMs = performance.now() - t;

  // What a watcher does when inotify names the file: re-check just that path.
  appendFileSync(
    manifest.appendTarget,
    `${claudeLines({ sessionId: 'x', cwd: '/x', turns: [turn] })
      .slice(2)
      .join('\n')}\n`,
  );
  t = performance.now();
  const targeted = await index.scanPaths([manifest.appendTarget]);
  const targetedRescanMs = performance.now() - t;
  index.save();
  clearInterval(probe);

  return {
    sessions: first.sessions.length,
    filesSeen: first.stats.filesSeen,
    storeBytes: manifest.totalBytes,
    firstScanMs: Math.round(firstScanMs),
    firstScanBytesRead: first.stats.bytesRead,
    firstScanMBps: Math.round(first.stats.bytesRead / 1e6 / (firstScanMs / 1000)),
    // CPU time is what the scan costs whatever else the machine is doing.
    firstScanCpuUserMs: Math.round(firstScanCpu.user / 1000),
    firstScanCpuSystemMs: Math.round(firstScanCpu.system / 1000),
    saveMs: Math.round(saveMs),
    stateFileBytes: statSync(join(stateDir, STATE_FILE)).size,
    idleRescanMs: Math.round(idleRescanMs),
    idleRescanBytesRead: idle.stats.bytesRead,
    rescanAfterAppendMs: Math.round(rescanMs),
    rescanAfterAppendBytesRead: changed.stats.bytesRead,
    rescanAfterAppendFilesRead: changed.stats.filesRead,
    saveAfterChangeMs: Math.round(saveAfterChangeMs),
    watchedFileRescanMs: Math.round(targetedRescanMs * 10) / 10,
    watchedFileRescanBytesRead: targeted.stats.bytesRead,
    maxEventLoopBlockMs: Math.round(maxLoopBlockMs),
    problems: first.problems.length,
    baselineRssMB,
    peakRssMB: rssMB(),
  };
}

/** A restarted agent: loads the state file and re-scans; nothing should be read again. */
async function measureRestart(dir: string, stateDir: string): Promise<Record<string, unknown>> {
  const t = performance.now();
  const index = new DiscoveryIndex({ claudeHome: join(dir, '.claude'), codexHome: join(dir, '.codex'), stateDir });
  const result = await index.scan();
  return {
    restartScanMs: Math.round(performance.now() - t),
    restartBytesRead: result.stats.bytesRead,
    restartSessions: result.sessions.length,
    restartPeakRssMB: rssMB(),
  };
}

function child(mode: string, dir: string, stateDir: string): Record<string, unknown> {
  const out = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), mode, dir, stateDir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (out.status !== 0) throw new Error(`${mode} child failed with ${out.status}`);
  return JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

async function main(): Promise<void> {
  const [mode, modeDir, modeState] = args;
  if ((mode === '--measure' || mode === '--restart') && modeDir && modeState) {
    const result = mode === '--measure' ? await measure(modeDir, modeState) : await measureRestart(modeDir, modeState);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const scale = Number(flag('--scale') ?? '1');
  const dir = flag('--dir') ?? `/tmp/bria-discovery-bench-${scale}`;
  mkdirSync(dir, { recursive: true });
  const manifestFile = join(dir, 'manifest.json');
  let buildMs = 0;
  if (args.includes('--rebuild') || !existsSync(manifestFile) || (JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest).scale !== scale) {
    const t = performance.now();
    build(dir, scale);
    buildMs = Math.round(performance.now() - t);
  }
  // Fresh processes, so neither building the store nor the other phase inflates the numbers.
  const stateDir = mkdtempSync('/tmp/bria-discovery-bench-state-');
  try {
    const measured = child('--measure', dir, stateDir);
    const restarted = child('--restart', dir, stateDir);
    process.stdout.write(`${JSON.stringify({ scale, dir, buildMs, ...measured, ...restarted, node: process.version })}\n`);
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

await main();
