import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, createNodeWithToken } from '@bria/core/db';
import { freePort } from '@bria/core/db/admin';
import { Hub } from '@bria/core/hub';
import { startEngine } from '../../packages/core/src/engine/start-engine.ts';
import { PushSender } from '../../packages/core/src/hub/push-sender.ts';
import { createCliHome } from '@bria/testkit/cli-homes';
import { startAnthropicMock, startOpenAIMock } from '@bria/testkit/mock-models';
import { startFakeTranscribe, type TranscribeBehaviour } from '@bria/testkit/fake-transcribe';
import { createLogger } from '@bria/core/log';
import { createLoginLink } from '@bria/core/trpc';
import { ADMIN_URL_ENV, createTestDatabase, startTestCluster } from '@bria/testkit/postgres';
import { killTmuxServer } from '../../packages/testkit/src/system.ts';
import { Agent } from '../../apps/node-agent/src/agent.ts';
import { buildAgentBundle } from '../../scripts/build-agent.ts';
import { STATE_FILE, type E2EState } from './state.ts';

/**
 * Playwright's web server: a real Postgres, the hub, a node agent for "this computer", and the
 * dashboard as a production build. Playwright starts this before globalSetup, so everything the
 * tests need (URLs, a way to mint login links) is prepared here and written to STATE_FILE.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const webDir = path.join(root, 'apps/web');
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);
const say = (msg: string) => process.stderr.write(`[e2e serve] ${msg}\n`);
/**
 * The tmux server of this run's agent: its own name per run, so two runs on one machine (two
 * worktrees, or CI beside a developer) never end or adopt each other's CLIs.
 */
const tmuxSocket = `bria-e2e-${process.pid}`;
const log = createLogger({ name: 'e2e', level: 'warn', destination: process.stderr });

const cleanups: (() => Promise<void> | void)[] = [];
let stopping = false;
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    for (const fn of cleanups.reverse())
      await Promise.resolve()
        .then(fn)
        .catch((err: unknown) => say(`cleanup failed: ${String(err)}`));
  }
  process.exit(code);
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => void stop(0));

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // Own process group, so stopping Next also stops the workers it forks.
  const child = spawn(cmd, args, {
    cwd: webDir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.on('data', (d: Buffer) => process.stderr.write(`[next] ${d}`));
  child.stderr?.on('data', (d: Buffer) => process.stderr.write(`[next] ${d}`));
  return child;
}

function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      resolve();
    }
  });
}

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`dashboard not healthy at ${url} within ${timeoutMs} ms`);
}

try {
  const cluster = await startTestCluster();
  cleanups.push(() => cluster.stop());
  process.env[ADMIN_URL_ENV] = cluster.adminUrl;
  const tdb = await createTestDatabase();
  const db = createDb(tdb.url);
  // No drop: the whole throw-away cluster goes (and Playwright's SIGTERM reaches Postgres too).
  cleanups.push(() => db.$disconnect());

  const hubPort = await freePort();
  // The agent bundle "Add a computer" pins and the hub serves, as npm start builds it.
  const agentBundleDir = mkdtempSync(path.join(tmpdir(), 'bria-e2e-bundle-'));
  cleanups.push(() => rmSync(agentBundleDir, { recursive: true, force: true }));
  await buildAgentBundle({ outDir: agentBundleDir });
  const newHub = () => new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: hubPort, heartbeatMs: 1000, log, agentBundleDir });
  let hub: Hub | undefined = newHub();
  await hub.start();
  cleanups.push(() => hub?.stop());

  // The session engine turns agent events into state, as the hub process does in production.
  const engine = await startEngine({ db, databaseUrl: tdb.url, log, safetyPollMs: 500, timerPollMs: 200, nodePollMs: 300 });
  cleanups.push(() => engine.stop());
  // Web Push is sent by the hub process beside the engine (hub/main.ts does the same).
  const pushSender = new PushSender({ db, databaseUrl: tdb.url, log });
  await pushSender.start();
  cleanups.push(() => pushSender.stop());

  // The real CLIs talk to local mock model servers (the internet is the only thing faked).
  const mocks = { claude: await startAnthropicMock({ slowChunks: 40, slowChunkMs: 250 }), codex: await startOpenAIMock({ slowChunks: 40, slowChunkMs: 250 }) };
  cleanups.push(async () => {
    await mocks.claude.close();
    await mocks.codex.close();
  });
  const cliRoot = mkdtempSync(path.join(tmpdir(), 'bria-e2e-cli-'));
  const workDir = path.join(cliRoot, 'work');
  mkdirSync(workDir, { recursive: true });
  const { env: cliEnv } = await createCliHome({ root: cliRoot, trustedDirs: [workDir], anthropicUrl: mocks.claude.url, openaiUrl: mocks.codex.url });
  cleanups.push(() => rmSync(cliRoot, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }));

  const { token } = await createNodeWithToken(db, { name: 'this computer', isLocal: true, label: 'local' });
  const agentDir = mkdtempSync(path.join(tmpdir(), 'bria-e2e-agent-'));
  const agent = new Agent(
    {
      hubUrl: `ws://127.0.0.1:${hubPort}/agent`,
      token,
      dir: agentDir,
      claudeBin: bin('claude'),
      codexBin: bin('codex'),
      tmuxSocket,
      logLevel: 'warn',
      cliEnv,
    },
    // Warnings with their fields: a failed start or resume says why in the run's output.
    (level, msg, fields) => {
      if (level !== 'info') say(`agent ${level}: ${msg}${fields ? ` ${JSON.stringify(fields).slice(0, 600)}` : ''}`);
    },
  );
  await agent.start();
  cleanups.push(async () => {
    await agent.stop();
    // The CLIs live in tmux on purpose; the test server owns that tmux server and ends it, their
    // process trees first (a CLI still exiting wrote into its home while that was being removed).
    await killTmuxServer(tmuxSocket);
    rmSync(agentDir, { recursive: true, force: true });
  });

  const t0 = Date.now();
  const build = run(bin('next'), ['build'], {});
  const buildCode = await new Promise<number | null>((resolve) => build.once('exit', resolve));
  if (buildCode !== 0) throw new Error(`next build failed (exit ${buildCode})`);
  const buildMs = Date.now() - t0;
  say(`next build took ${(buildMs / 1000).toFixed(1)} s`);

  const webPort = await freePort();
  const baseURL = `http://127.0.0.1:${webPort}`;
  // The dashboard's process can be stopped and started again on the same port (POST /web/stop,
  // /web/start), so a test can watch the pages ride out a real server restart, or start it with
  // a few more variables (a JSON body `{ "env": { … } }`) to see the configuration it runs with.
  // Only an exit nobody asked for stops the whole test server.
  let next: ChildProcess | undefined;
  // The record button's transcription service (docs/voice.md): the fake OpenAI-compatible API.
  const stt = await startFakeTranscribe({ apiKey: 'sk-e2e-transcribe', behaviour: { type: 'text', text: 'Please run the unit tests.' } });
  cleanups.push(() => stt.close());
  const startWeb = async (extraEnv: Record<string, string> = {}) => {
    const child = run(bin('next'), ['start', '-H', '127.0.0.1', '-p', String(webPort)], {
      DATABASE_URL: tdb.url,
      BRIA_HUB_HEALTH_URL: `http://127.0.0.1:${hubPort}/health`,
      BRIA_PUBLIC_URL: baseURL,
      BRIA_HUB_PUBLIC_URL: `ws://127.0.0.1:${hubPort}/agent`,
      BRIA_AGENT_BUNDLE_DIR: agentBundleDir,
      BRIA_TRANSCRIBE_URL: stt.url,
      BRIA_TRANSCRIBE_KEY: 'sk-e2e-transcribe',
      LOG_LEVEL: 'warn',
      ...extraEnv,
    });
    next = child;
    child.once('exit', (code) => {
      if (!stopping && next === child) {
        say(`next start exited (${code})`);
        void stop(1);
      }
    });
    await waitForHealth(`${baseURL}/api/health`, 60_000);
  };
  const stopWeb = async () => {
    const child = next;
    next = undefined;
    if (child) await killGroup(child);
  };
  await startWeb();
  cleanups.push(() => stopWeb());

  // Tests mint their own one-time links here (each link works once, so a file could hold only a few).
  const control: Server = createServer((req, res) => {
    // Stopping and restarting the hub lets tests watch health and node state follow reality.
    if (req.method === 'POST' && (req.url === '/web/stop' || req.url === '/web/start')) {
      const body: Buffer[] = [];
      req.on('data', (d: Buffer) => body.push(d));
      const act = async () => {
        await new Promise((resolve) => req.once('end', resolve));
        if (req.url === '/web/stop') return stopWeb();
        const text = Buffer.concat(body).toString();
        const extra = text ? (JSON.parse(text) as { env?: Record<string, string> }).env : undefined;
        if (!next) await startWeb(extra);
      };
      act().then(
        () => res.writeHead(204).end(),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    if (req.method === 'POST' && (req.url === '/hub/stop' || req.url === '/hub/start')) {
      const act =
        req.url === '/hub/stop'
          ? async () => {
              await hub?.stop();
              hub = undefined;
            }
          : async () => {
              if (!hub) {
                hub = newHub();
                await hub.start();
              }
            };
      act().then(
        () => res.writeHead(204).end(),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    // The fake transcription service: what it was sent (GET), and what it answers next (POST a TranscribeBehaviour).
    if (req.url === '/transcribe/requests' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stt.requests()));
      return;
    }
    if (req.url === '/transcribe/behave' && req.method === 'POST') {
      const body: Buffer[] = [];
      req.on('data', (d: Buffer) => body.push(d));
      req.once('end', () => {
        stt.behave(JSON.parse(Buffer.concat(body).toString()) as TranscribeBehaviour);
        res.writeHead(204).end();
      });
      return;
    }
    // What the mock models were asked (no bodies): a test checks which texts a CLI sent, and which never.
    const mock = req.method === 'GET' ? /^\/mock\/(claude|codex)\/requests$/.exec(req.url ?? '') : null;
    if (mock) {
      const requests = mocks[mock[1] as 'claude' | 'codex'].requests.map(({ body: _body, ...r }) => r);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(requests));
      return;
    }
    if (req.method !== 'POST' || !req.url?.startsWith('/login-link')) {
      res.writeHead(404).end();
      return;
    }
    const expired = new URL(req.url, 'http://x').searchParams.get('expired') === '1';
    const now = expired ? new Date(Date.now() - 16 * 60_000) : new Date();
    createLoginLink({ db, baseUrl: baseURL, now }).then(
      (link) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: link.url })),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  const controlPort = await freePort();
  await new Promise<void>((resolve) => control.listen(controlPort, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => control.close(() => resolve())));

  const state: E2EState = { baseURL, controlURL: `http://127.0.0.1:${controlPort}`, hubPort, buildMs, databaseUrl: tdb.url, workDir, cliEnv, tmuxSocket };
  mkdirSync(path.dirname(STATE_FILE), { recursive: true });
  writeFileSync(STATE_FILE, JSON.stringify(state, null, 2));
  process.stdout.write(`BRIA_E2E_READY ${baseURL}\n`);
} catch (err) {
  say(`failed: ${(err as Error).stack ?? String(err)}`);
  await stop(1);
}
