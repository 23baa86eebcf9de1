// A whole Bria on one machine for scenario tests: a test database, the hub and the session engine
// (in this process), the mock model servers, a throw-away CLI home, a private tmux server and a real
// node agent in a child process (so it can be SIGKILLed and started again).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createDb, type Db } from '../../core/src/db/client.ts';
import { procStart } from '../../core/src/db/embedded-postgres.ts';
import { createNodeWithToken } from '../../core/src/db/repos/nodes.ts';
import { type Engine, startEngine } from '../../core/src/engine/start-engine.ts';
import { Hub, type HubOptions } from '../../core/src/hub/server.ts';
import * as services from '../../core/src/services/index.ts';
import { addTrustedDir, claudeBin, codexBin, createCliHome } from './cli-homes.ts';
import { type MockServer, startAnthropicMock, startOpenAIMock } from './mock-models/index.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';
import type { Executor } from '../../core/src/protocol/index.ts';

export type { Executor };
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Real time plus an offset a test may move forward (lifetime, retry schedules). */
export class OffsetClock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** The physical identity the agent reported for a session (as stored by the hub). */
export interface HostIdentity {
  paneId: string;
  tmuxSession: string;
  cliPid: number;
  cliStartTime: string;
  nativeId: string;
  journalPath: string | null;
}

import { waitUntil } from './wait.ts';

export { waitUntil };

/** `agentEnv`: added to every agent this system starts (e.g. BRIA_AGENT_PROCESS_LAYER=portable). */
export async function startSystem(
  o: {
    executors?: Executor[];
    slowChunks?: number;
    slowChunkMs?: number;
    agentEnv?: Record<string, string>;
    hub?: Pick<HubOptions, 'agentBundleDir' | 'tls'>;
  } = {},
) {
  const executors = o.executors ?? ['claude', 'codex'];
  const root = await mkdtemp(path.join(tmpdir(), 'bria-sys-'));
  const work = path.join(root, 'work');
  mkdirSync(work, { recursive: true });
  const tdb: TestDatabase = await createTestDatabase();
  const db: Db = createDb(tdb.url, { max: 8 });
  // BRIA_SYS_LOG=<file> writes the hub's and the engine's log there (debugging a scenario).
  const log = process.env.BRIA_SYS_LOG ? pino({ level: 'debug' }, pino.destination(`${process.env.BRIA_SYS_LOG}.${process.pid}`)) : pino({ level: 'silent' });
  const clock = new OffsetClock();
  const mockOpts = { slowChunks: o.slowChunks ?? 30, slowChunkMs: o.slowChunkMs ?? 100, keepBodies: true };
  const mocks: Record<Executor, MockServer> = { claude: await startAnthropicMock(mockOpts), codex: await startOpenAIMock(mockOpts) };
  const { env: cliEnv, home } = await createCliHome({ root, trustedDirs: [work], anthropicUrl: mocks.claude.url, openaiUrl: mocks.codex.url });
  const { nodeId, token } = await createNodeWithToken(db, { name: 'node-1' });
  await db.node.update({ where: { id: nodeId }, data: { enabledExecutors: executors } });
  const chatId = 1001n;
  await db.telegramChat.create({ data: { chatId, userId: 42n } });
  let hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 500, log, ...o.hub });
  await hub.start();
  const hubPort = hub.port;
  const engine: Engine = await startEngine({ db, databaseUrl: tdb.url, log, clock, safetyPollMs: 500, timerPollMs: 200, nodePollMs: 300 });
  const tmuxSocket = `bria-sys-${randomBytes(4).toString('hex')}`;
  const agentDir = path.join(root, 'agent');
  const agentLog = path.join(root, 'agent.log');
  const deps = { db, clock, log };
  let agent: ChildProcess | null = null;

  const tmux = (...args: string[]) => {
    try {
      return execFileSync('tmux', ['-L', tmuxSocket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return null;
    }
  };

  const sys = {
    root,
    work,
    home,
    db,
    deps,
    clock,
    nodeId,
    chatId,
    mocks,
    tmuxSocket,
    agentDir,
    cliEnv,
    engine,
    databaseUrl: tdb.url,
    agentToken: token,
    get hub() {
      return hub;
    },

    /** Starts the node agent process and waits until the hub has it online (`env`: test seams, e.g. BRIA_AGENT_TEST_CRASH). */
    async startAgent(opts: { env?: Record<string, string> } = {}): Promise<void> {
      // Online is not enough: right after a kill the row may still say online for the old socket
      // until the hub sees it close (and then marks the node offline). This agent's own hello is
      // the one that sets a newer connectedAt.
      const before = (await db.node.findUniqueOrThrow({ where: { id: nodeId }, select: { connectedAt: true } })).connectedAt?.getTime() ?? 0;
      const out = createWriteStream(agentLog, { flags: 'a' });
      const child = spawn(process.execPath, ['--import', 'tsx', 'apps/node-agent/src/main.ts', '--hub', `ws://127.0.0.1:${hubPort}/agent`, '--dir', agentDir], {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...cliEnv,
          BRIA_AGENT_TOKEN: token,
          BRIA_CLAUDE_BIN: claudeBin,
          BRIA_CODEX_BIN: codexBin,
          BRIA_TMUX_SOCKET: tmuxSocket,
          LOG_LEVEL: 'info',
          ...o.agentEnv,
          ...opts.env,
        },
      });
      child.stdout?.pipe(out);
      child.stderr?.pipe(out);
      agent = child;
      await waitUntil(
        'the agent online',
        async () => {
          const n = await db.node.findUniqueOrThrow({ where: { id: nodeId }, select: { online: true, connectedAt: true } });
          return n.online && (n.connectedAt?.getTime() ?? 0) > before;
        },
        30_000,
      );
    },
    /** Resolves when the agent process ends by itself (a test seam's SIGKILL); with its signal. */
    agentExited(): Promise<string | null> {
      const a = agent;
      if (!a) return Promise.resolve(null);
      if (a.exitCode !== null || a.signalCode !== null) return Promise.resolve(a.signalCode);
      return new Promise((r) =>
        a.once('exit', (_code, signal) => {
          if (agent === a) agent = null;
          r(signal);
        }),
      );
    },
    get agentPid(): number | null {
      return agent?.exitCode === null && agent.signalCode === null ? (agent.pid ?? null) : null;
    },
    /** SIGKILL: no goodbye, no chance to touch the CLIs. */
    async killAgent(): Promise<void> {
      const a = agent;
      // An agent that died by a signal has exitCode null and signalCode set: it will never exit again.
      if (!a || a.exitCode !== null || a.signalCode !== null) return;
      const gone = new Promise((r) => a.once('exit', r));
      a.kill('SIGKILL');
      await gone;
      agent = null;
    },
    async stopAgent(): Promise<number | null> {
      const a = agent;
      if (!a || a.exitCode !== null || a.signalCode !== null) return a?.exitCode ?? null;
      const gone = new Promise<number | null>((r) => a.once('exit', (code) => r(code)));
      a.kill('SIGTERM');
      agent = null;
      return gone;
    },
    agentLog: () => (existsSync(agentLog) ? readFileSync(agentLog, 'utf8') : ''),
    /** Stops the in-process hub (agents lose their socket) and starts it again on the same port. */
    async restartHub(pauseMs = 0, whileDown?: () => Promise<void>): Promise<void> {
      await hub.stop();
      await sleep(pauseMs);
      await whileDown?.();
      hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: hubPort, heartbeatMs: 500, log, ...o.hub });
      await hub.start();
    },

    /** A fresh working folder both CLIs trust. */
    folder(name: string): string {
      const dir = path.join(work, name);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    async trust(dir: string): Promise<void> {
      await addTrustedDir(home, dir);
    },

    createSession: (executor: Executor, folder: string) => services.createSession(deps, { nodeId, executor, folder, chatId }),
    send: (sessionId: string, text: string) => services.acceptMessage(deps, { sessionId, text, source: 'web' }),
    stop: (sessionId: string) => services.stopSession(deps, { sessionId }),
    close: (sessionId: string) => services.closeSession(deps, { sessionId }),
    resume: (sessionId: string) => services.resumeSession(deps, { sessionId }),
    jump: (sessionId: string) => services.jumpToSession(deps, { chatId, sessionId }),
    setLifetime: (lifetime: string) => services.updateSettings(deps, { lifetime }),

    session: (id: string) => db.session.findUniqueOrThrow({ where: { id } }),
    messages: (sessionId: string) => db.message.findMany({ where: { sessionId }, orderBy: { seq: 'asc' } }),
    outbox: (sessionId: string) => db.outbox.findMany({ where: { sessionId }, orderBy: { id: 'asc' } }),
    evidence: (sessionId: string) => db.sessionEvidence.findMany({ where: { sessionId }, orderBy: { id: 'asc' } }),
    async waitState(sessionId: string, states: string | string[], ms = 45_000) {
      const want = Array.isArray(states) ? states : [states];
      let seen = '';
      return waitUntil(
        `session ${sessionId.slice(0, 8)} in ${want.join('|')}`,
        async () => {
          const s = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
          seen = s.state;
          return want.includes(s.state) ? s : null;
        },
        ms,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; last state ${seen}`);
      });
    },
    async waitMessages(sessionId: string, pred: (statuses: string[]) => boolean, ms = 45_000) {
      return waitUntil(
        `messages of ${sessionId.slice(0, 8)}`,
        async () => {
          const m = await sys.messages(sessionId);
          return pred(m.map((x) => x.status)) ? m : null;
        },
        ms,
      );
    },
    /** What the agent reported as the session's process (pane, pid, start time, journal). */
    async identity(sessionId: string): Promise<HostIdentity> {
      const s = await db.session.findUniqueOrThrow({ where: { id: sessionId } });
      const host = (s.identity as { host?: HostIdentity } | null)?.host;
      if (!host) throw new Error('no identity stored for this session');
      return host;
    },

    /** The mock's turn requests for one native session (the CLIs send their session id as a header). */
    turns: (executor: Executor, nativeId: string) => mocks[executor].requests.filter((r) => r.kind === 'turn' && r.sessionId === nativeId),
    allTurns: (executor: Executor) => mocks[executor].requests.filter((r) => r.kind === 'turn'),

    /** SIGKILL of the CLI process itself (its pane stays, dead, as after a crash). */
    async killCli(sessionId: string): Promise<number> {
      const id = await sys.identity(sessionId);
      // The stored pid is the CLI's only together with its start: once the CLI has ended, the pid
      // may be another process's (the chaos harness's cli_kill had that flaw, see docs/reliability.md).
      if (!isRecordedProcess(id.cliPid, id.cliStartTime)) throw new Error(`killCli: the CLI of ${sessionId} (pid ${id.cliPid}) is no longer running`);
      process.kill(id.cliPid, 'SIGKILL');
      return id.cliPid;
    },
    /** null when the pane no longer exists at all. */
    paneDead(paneId: string): boolean | null {
      const rows = (tmux('list-panes', '-a', '-F', '#{pane_id} #{pane_dead}') ?? '').split('\n').map((l) => l.split(' '));
      const row = rows.find((r) => r[0] === paneId);
      return row ? row[1] === '1' : null;
    },

    async dispose(): Promise<void> {
      await sys.killAgent().catch(() => undefined);
      await killTmuxServer(tmuxSocket);
      await engine.stop().catch(() => undefined);
      await hub.stop().catch(() => undefined);
      await mocks.claude.close();
      await mocks.codex.close();
      await db.$disconnect();
      await tdb.drop().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
  return sys;
}
export type System = Awaited<ReturnType<typeof startSystem>>;

/**
 * Ends a private tmux server for good: every CLI process of every pane (with its children), then
 * the server, then the socket file tmux leaves behind when its server is killed.
 */
export async function killTmuxServer(socketName: string): Promise<void> {
  const tmux = (...args: string[]) => {
    try {
      return execFileSync('tmux', ['-L', socketName, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return null;
    }
  };
  const pids = (tmux('list-panes', '-a', '-F', '#{pane_pid}') ?? '').split('\n').filter(Boolean).map(Number);
  for (const p of pids.flatMap(processTree)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {}
  }
  // Asked of the server while it runs; a server already gone (its last session ended) leaves the
  // file where tmux puts it by default.
  const told = (tmux('list-sessions', '-F', '#{socket_path}') ?? '').split('\n')[0]?.trim() ?? '';
  const socket = told || path.join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, socketName);
  tmux('kill-server');
  if (socket.endsWith(`/${socketName}`)) await rm(socket, { force: true });
}

/** A process and all its descendants (from `ps`), parents first. */
export function processTree(root: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number));
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of rows) if (ppid === out[i] && pid !== undefined) out.push(pid);
  return out;
}

/** Whether a process exists and is not a zombie, read from /proc. */
export function procAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is alive and is the process the agent recorded with start token `token`, in either
 * process layer's form: /proc ticks, or `ps` `lstart` (BRIA_AGENT_PROCESS_LAYER=portable), read
 * here with ps itself (C locale, UTC) rather than with the agent's code.
 */
export function isRecordedProcess(pid: number, token: string): boolean {
  if (!procAlive(pid)) return false;
  if (/^\d+$/.test(token)) return procStart(pid) === token;
  try {
    const lstart = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' } });
    return lstart.trim().replace(/\s+/g, ' ') === token.trim().replace(/\s+/g, ' ');
  } catch {
    return false;
  }
}
