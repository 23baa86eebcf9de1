// One whole Bria for one chaos run, composed so every part can be broken: the hub with its session
// engine in their own process (SIGKILL; final-save seam through a file), a TCP proxy between agent
// and hub (cut, delay, away), the bot's own production process (apps/bot/src/main.ts, SIGKILL)
// against the fake Bot API, a real agent child process with real CLIs in a private tmux server,
// and the suite's own restartable Postgres.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createDb, type Db } from '../../packages/core/src/db/client.ts';
import { createNodeWithToken } from '../../packages/core/src/db/repos/nodes.ts';
import * as services from '../../packages/core/src/services/index.ts';
import { createLoginLink } from '../../packages/core/src/services/auth/create-login-link.ts';
import { redeemLoginToken } from '../../packages/core/src/services/auth/redeem-login-token.ts';
import { CSRF_HEADER, SESSION_COOKIE } from '../../packages/core/src/services/auth/secrets.ts';
import { createCaller } from '../../packages/core/src/trpc/app-router.ts';
import { createContext } from '../../packages/core/src/trpc/context.ts';
import { claudeBin, codexBin, createCliHome } from '../../packages/testkit/src/cli-homes.ts';
import { type FakeTelegram, startFakeTelegram } from '../../packages/testkit/src/fake-telegram/index.ts';
import { type MockServer, startAnthropicMock, startOpenAIMock } from '../../packages/testkit/src/mock-models/index.ts';
import { PushEndpoint } from '../../packages/testkit/src/push-endpoint.ts';
import { killTmuxServer, OffsetClock, waitUntil } from '../../packages/testkit/src/system.ts';
import type { ChaosCluster } from './chaos-cluster.ts';
import { restartablePort } from './ports.ts';
import { TcpProxy } from './tcp-proxy.ts';
import type { Executor } from '../../packages/core/src/protocol/index.ts';

export type { Executor };
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startChaosSystem(cluster: ChaosCluster, o: { slowChunks: number; slowChunkMs: number }) {
  const root = await mkdtemp(path.join(tmpdir(), 'bria-chaos-'));
  const work = path.join(root, 'work');
  mkdirSync(work, { recursive: true });
  const database = await cluster.createDatabase();
  const db: Db = createDb(database.url, { max: 8 });
  const log = pino({ level: 'silent' });
  const clock = new OffsetClock();
  const mockOpts = { slowChunks: o.slowChunks, slowChunkMs: o.slowChunkMs, keepBodies: false };
  const mocks: Record<Executor, MockServer> = { claude: await startAnthropicMock(mockOpts), codex: await startOpenAIMock(mockOpts) };
  const { env: cliEnv, home } = await createCliHome({ root, trustedDirs: [work], anthropicUrl: mocks.claude.url, openaiUrl: mocks.codex.url });
  const { nodeId, token } = await createNodeWithToken(db, { name: 'chaos-node' });
  await db.node.update({ where: { id: nodeId }, data: { enabledExecutors: ['claude', 'codex'] } });

  const fake: FakeTelegram = await startFakeTelegram();
  /** The browsers' push service (`push_fail`): records every push the hub's sender makes, answers as told. */
  const pushes = await new PushEndpoint().start();
  const chatId = BigInt(fake.user.id);
  await db.telegramChat.create({ data: { chatId, userId: chatId } });
  const deps = { db, clock, log };
  // The dashboard user, signed in the way a browser is (one-time link → session cookie + CSRF
  // token). Every web action is one request through the dashboard's tRPC routers with those headers.
  const link = await createLoginLink({ db, baseUrl: 'http://127.0.0.1:3999' });
  const login = await redeemLoginToken({ db, token: new URL(link.url).searchParams.get('token') ?? '' });
  const dashboard = async () => {
    const headers = new Headers({ cookie: `${SESSION_COOKIE}=${login.secret}`, [CSRF_HEADER]: login.csrfToken });
    return createCaller(await createContext({ db, headers, resHeaders: new Headers() }));
  };

  /**
   * The hub's port, the proxy's target: below the automatic port range, so no outgoing connection
   * takes it while a killed hub is down, and a restarted hub takes the same one again. Should
   * another listener hold it all the same, the next attempt binds port 0 and the hub reports the
   * port it got. The agent reaches the hub through the proxy, which follows.
   */
  let hubPort = await restartablePort();
  const logs = createWriteStream(path.join(root, 'children.log'), { flags: 'a' });
  let hub: ChildProcess | null = null;
  const proxy = new TcpProxy(() => hubPort);
  await proxy.start();
  /** While the time written here lies ahead, the engine refuses every final write (`final_save`). */
  const finalSaveFile = path.join(root, 'final-save-fault');

  // The bot is the production bot process; its outbox lease is short so a row a killed bot held
  // comes back within the settle time (8 s instead of 60 s; its Bot API timeout is half of it).
  let bot: ChildProcess | null = null;
  const botEnv = {
    ...process.env,
    TELEGRAM_BOT_TOKEN: fake.token,
    TELEGRAM_API_ROOT: fake.apiRoot,
    TELEGRAM_ALLOWED_USERS: String(fake.user.id),
    DATABASE_URL: database.url,
    BRIA_DATA_DIR: path.join(root, 'bot-data'),
    BRIA_PUBLIC_URL: 'http://127.0.0.1:3999',
    BRIA_BOT_OUTBOX_LEASE_MS: '8000',
    LOG_LEVEL: 'warn',
  };
  /**
   * Every SIGKILL of the bot, with the outbox rows it held at that moment (`sending`, never marked
   * after: the process is gone). A row whose Telegram call was answered before the kill is the
   * outbox's one duplicate window (Telegram has no idempotency key): it is sent once more after its
   * lease. The invariants allow exactly that and nothing else.
   */
  const botKills: { at: number; sending: string[] }[] = [];

  const tmuxSocket = `bria-chaos-${randomBytes(4).toString('hex')}`;
  const agentDir = path.join(root, 'agent');
  let agent: ChildProcess | null = null;
  const tmux = (...args: string[]) => {
    try {
      return execFileSync('tmux', ['-L', tmuxSocket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return null;
    }
  };
  /**
   * Hub and agent processes that ended without the harness killing them (a crash: for example on
   * input a fault wrote into a socket). Each is a violation.
   */
  const crashes: string[] = [];
  const killed = new WeakSet<ChildProcess>();
  const watchCrash = (name: string, c: ChildProcess) =>
    c.once('exit', (code, signal) => {
      if (!killed.has(c))
        crashes.push(`the ${name} process ${c.pid} ended by itself (code ${code}, signal ${signal}) at ${new Date().toISOString().slice(11, 23)}`);
    });
  const killChild = async (c: ChildProcess | null) => {
    if (c) killed.add(c);
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await gone;
  };

  const sys = {
    root,
    work,
    home,
    /** The CLIs' environment (HOME, config dirs, the mock models' URLs), as a person's shell would have it. */
    cliEnv,
    db,
    deps,
    clock,
    finalSaveFile,
    nodeId,
    chatId,
    mocks,
    fake,
    proxy,
    tmuxSocket,
    cluster,
    pushes,
    crashes,
    /** The agent's data folder (its hook socket is `hooks/agent.sock` in it). */
    agentDir,
    /** The signed-in dashboard user (owner of the run's push devices). */
    userId: login.userId,
    /** Starts the hub process; tries again while Postgres is down (a real supervisor would too). */
    async startHub(): Promise<void> {
      let listenOn = hubPort;
      for (let attempt = 0; ; attempt++) {
        const child = spawn(process.execPath, ['--import', 'tsx', 'tests/chaos/hub-child.ts', database.url, String(listenOn), finalSaveFile], {
          cwd: REPO,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stderr?.pipe(logs, { end: false });
        let stdout = '';
        let stderr = '';
        child.stderr?.on('data', (b: Buffer) => {
          stderr = (stderr + b.toString()).slice(-8192);
        });
        const port = await new Promise<number | null>((resolve) => {
          child.stdout?.on('data', (b: Buffer) => {
            stdout += b.toString();
            const m = /hub-ready (\d+)\n/.exec(stdout);
            if (m) resolve(Number(m[1]));
          });
          child.once('exit', () => resolve(null));
        });
        if (port !== null) {
          watchCrash('hub', child);
          hub = child;
          hubPort = port;
          return;
        }
        if (listenOn !== 0 && /EADDRINUSE|is already in use/.test(stderr)) {
          logs.write(`chaos: the hub's port ${listenOn} is taken; the next start takes a free one\n`);
          listenOn = 0;
        }
        if (attempt > 40) throw new Error('the hub did not start');
        await sleep(500);
      }
    },
    /**
     * Starts the bot process and waits until it polls the fake Bot API. A bot that exits at start
     * (Postgres restarting, an injected Bot API fault on getMe) is started again, as a supervisor would.
     */
    async startBot(): Promise<void> {
      for (let attempt = 0; ; attempt++) {
        const polls = fake.calls('getUpdates').length;
        const child = spawn(process.execPath, ['--import', 'tsx', 'apps/bot/src/main.ts'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: botEnv });
        child.stdout?.pipe(logs, { end: false });
        child.stderr?.pipe(logs, { end: false });
        bot = child;
        await waitUntil('the bot polling', async () => fake.calls('getUpdates').length > polls || child.exitCode !== null, 60_000, 100);
        if (child.exitCode === null) return;
        bot = null;
        if (attempt > 40) throw new Error(`the bot did not start (exit code ${child.exitCode})`);
        await sleep(500);
      }
    },
    async killBot(): Promise<void> {
      if (!bot) return;
      await killChild(bot);
      bot = null;
      const sending = await db.outbox.findMany({ where: { status: 'sending' }, select: { dedupeKey: true } }).catch(() => null);
      botKills.push({ at: Date.now(), sending: sending?.map((r) => r.dedupeKey) ?? [] });
    },
    get botRunning(): boolean {
      return bot !== null && bot.exitCode === null;
    },
    botKills,
    /** The port the running hub listens on (the proxy's target). */
    get hubPort(): number {
      return hubPort;
    },
    async killHub(): Promise<void> {
      await killChild(hub);
      hub = null;
    },
    async startAgent(): Promise<void> {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'apps/node-agent/src/main.ts', '--hub', `ws://127.0.0.1:${proxy.port}/agent`, '--dir', agentDir],
        {
          cwd: REPO,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...cliEnv, BRIA_AGENT_TOKEN: token, BRIA_CLAUDE_BIN: claudeBin, BRIA_CODEX_BIN: codexBin, BRIA_TMUX_SOCKET: tmuxSocket, LOG_LEVEL: 'warn' },
        },
      );
      child.stdout?.pipe(logs, { end: false });
      child.stderr?.pipe(logs, { end: false });
      watchCrash('agent', child);
      agent = child;
    },
    async killAgent(): Promise<void> {
      await killChild(agent);
      agent = null;
    },
    get agentPid(): number | null {
      return agent && agent.exitCode === null ? (agent.pid ?? null) : null;
    },
    get agentRunning(): boolean {
      return agent !== null && agent.exitCode === null;
    },
    async waitOnline(ms = 60_000): Promise<void> {
      await waitUntil('the node online', async () => (await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online, ms, 200);
    },
    folder(name: string): string {
      const dir = path.join(work, name);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    /**
     * What the user does besides typing in Telegram. Sending, stopping, closing and resuming go
     * through the dashboard's API (tRPC routers, signed-in session, CSRF header; a message carries
     * the page's one-time client key). Creating is the Telegram chat's (/new binds the session to
     * the chat, so its finals are checked "exactly once" there), and switching is a chat action.
     */
    services: {
      // An asking permission mode, named as the user would pick it: Claude `default`, Codex `workspace-write` (on-request).
      create: (executor: Executor, folder: string) =>
        services.createSession(deps, { nodeId, executor, folder, chatId, permissionMode: executor === 'claude' ? 'default' : 'workspace-write' }),
      send: async (sessionId: string, text: string) =>
        (await dashboard()).sessions.sendMessage({ sessionId, text, clientKey: randomBytes(9).toString('base64url') }),
      stop: async (sessionId: string) => (await dashboard()).sessions.stop({ sessionId }),
      close: async (sessionId: string) => (await dashboard()).sessions.close({ sessionId }),
      resume: async (sessionId: string) => (await dashboard()).sessions.resume({ sessionId }),
      jump: (sessionId: string) => services.jumpToSession(deps, { chatId, sessionId }),
      /** The session's prompts as the dashboard shows them (open ones first, then the last few ended). */
      prompts: async (sessionId: string) => (await dashboard()).sessions.prompts({ sessionId }),
      answer: async (promptId: string, decision: 'allow' | 'deny', message?: string) =>
        (await dashboard()).sessions.answerPrompt({ promptId, decision, ...(message ? { message } : {}) }),
    },
    /** A folder outside the CLIs' trusted ones: Claude opens its folder-trust dialog at start. */
    untrustedFolder(name: string): string {
      const dir = path.join(root, 'untrusted', name);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    /** For a run that did not come to rest: what every pane shows and the children's last log lines. */
    diagnose(): string[] {
      const out: string[] = [];
      for (const l of (tmux('list-panes', '-a', '-F', '#{pane_id} #{session_name} dead=#{pane_dead} pid=#{pane_pid}') ?? '').split('\n').filter(Boolean)) {
        out.push(`pane ${l}`);
        const shown = (tmux('capture-pane', '-p', '-t', l.split(' ')[0]!) ?? '')
          .split('\n')
          .map((x) => x.trimEnd())
          .filter(Boolean)
          .slice(-12);
        for (const x of shown) out.push(`  | ${x.slice(0, 160)}`);
      }
      try {
        const text = readFileSync(path.join(root, 'children.log'), 'utf8').split('\n').filter(Boolean).slice(-30);
        for (const x of text) out.push(`log ${x.slice(0, 300)}`);
      } catch {}
      return out;
    },
    /** Live panes of the private tmux server: pane id → [dead, pid]. */
    panes(): Map<string, { dead: boolean; pid: number }> {
      const out = new Map<string, { dead: boolean; pid: number }>();
      for (const l of (tmux('list-panes', '-a', '-F', '#{pane_id} #{pane_dead} #{pane_pid}') ?? '').split('\n').filter(Boolean)) {
        const [id, dead, pid] = l.split(' ');
        out.set(id!, { dead: dead === '1', pid: Number(pid) });
      }
      return out;
    },
    /** Stops everything; `keep` (a failed run) or BRIA_CHAOS_KEEP=1 leaves the run's folder on disk. */
    async dispose(keep = false): Promise<void> {
      await killChild(bot).catch(() => undefined);
      await pushes.stop().catch(() => undefined);
      await sys.killAgent().catch(() => undefined);
      await killTmuxServer(tmuxSocket);
      await sys.killHub().catch(() => undefined);
      await proxy.stop();
      await fake.close();
      await mocks.claude.close();
      await mocks.codex.close();
      await db.$disconnect().catch(() => undefined);
      await database.drop().catch(() => undefined);
      logs.end();
      // The run's folder (CLI journals, agent, hub and bot logs) is kept to study a failure or a replay.
      if (keep || process.env.BRIA_CHAOS_KEEP === '1') console.log(`  kept ${root}`);
      else await rm(root, { recursive: true, force: true });
    },
  };
  return sys;
}
export type ChaosSystem = Awaited<ReturnType<typeof startChaosSystem>>;
