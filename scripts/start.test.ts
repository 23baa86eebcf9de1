import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../packages/core/src/db/embedded-postgres.ts';
import { type FakeTelegram, startFakeTelegram } from '../packages/testkit/src/fake-telegram/index.ts';

/**
 * `npm start` as a user runs it: on an empty data folder, again on the same folder, Ctrl-C, and a
 * busy port. Checks the physical result: health over HTTP, processes present and then gone.
 */
const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'bria-start-test-'));
const launched: ChildProcess[] = [];
/** A run its test left going (a failed expectation) is stopped as a user would, so a retry starts clean. */
afterEach(async () => {
  for (const p of launched.splice(0)) {
    if (p.exitCode !== null || p.signalCode !== null) continue;
    const gone = new Promise((r) => p.once('exit', r));
    p.kill('SIGINT');
    await Promise.race([gone, new Promise((r) => setTimeout(r, 30_000))]);
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Ports {
  web: number;
  hub: number;
  pg: number;
}

function launch(ports: Ports, extraEnv: Record<string, string> = {}) {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/start.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: '',
      BRIA_DATA_DIR: dataDir,
      BRIA_WEB_PORT: String(ports.web),
      BRIA_HUB_PORT: String(ports.hub),
      BRIA_PG_PORT: String(ports.pg),
      BRIA_HEARTBEAT_MS: '1000',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  launched.push(proc);
  let output = '';
  proc.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const waitFor = async (re: RegExp, ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (re.test(output)) return output;
      if (proc.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`did not see ${re} in:\n${output.slice(-3000)}`);
  };
  return { proc, exited, waitFor, output: () => output };
}

/** Every process whose command line mentions the data folder or the ports (Bria's own processes). */
function brianProcesses(ports: Ports): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmd = '';
    let env = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      env = readFileSync(`/proc/${pid}/environ`, 'utf8');
    } catch {
      continue;
    }
    if (cmd.includes(dataDir) || env.includes(`BRIA_DATA_DIR=${dataDir}`) || env.includes(`BRIA_WEB_PORT=${ports.web}\0`)) found.push(Number(pid));
  }
  return found;
}

/** GET over https trusting only `ca` (host name checked: the hub's certificate names 127.0.0.1). */
function getTls(url: string, ca: Buffer): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    httpsGet(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('latin1')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    }).on('error', reject);
  });
}

async function health(port: number): Promise<{ ok: boolean; nodesOnline: number; nodesTotal: number }> {
  const res = await fetch(`http://127.0.0.1:${port}/api/health`);
  return (await res.json()) as { ok: boolean; nodesOnline: number; nodesTotal: number };
}

async function untilHealthy(port: number, ms: number) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const h = await health(port).catch(() => undefined);
    if (h?.ok && h.nodesOnline === 1) return h;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('not healthy with the local node online in time');
}

describe('npm start', () => {
  const ports: Ports = { web: 0, hub: 0, pg: 0 };

  it('starts everything on an empty data folder, shows the local node online, and Ctrl-C leaves nothing behind', async () => {
    Object.assign(ports, { web: await freePort(), hub: await freePort(), pg: await freePort() });
    const run = launch(ports);
    await run.waitFor(/Press Ctrl-C to stop/, 240_000);
    const out = run.output();
    expect(out).toMatch(/Creating the embedded PostgreSQL cluster/);
    expect(out).toMatch(/This computer was enrolled as a node/);
    expect(out).toMatch(/The Telegram bot is off/);
    expect(out).toMatch(/Sign in once with this link .*\/login\?token=/);
    const h = await untilHealthy(ports.web, 60_000);
    expect(h.nodesTotal).toBe(1);
    // The hub port speaks TLS with Bria's own CA, made now (issue 30): keys 0600 in a 0700 folder.
    expect(out).toMatch(/The hub made its own certificate authority \(TLS on the agents' port; install commands pin SHA-256 [0-9a-f]{64}\)/);
    const tlsDir = path.join(dataDir, 'tls');
    expect(statSync(tlsDir).mode & 0o777).toBe(0o700);
    for (const key of ['ca-key.pem', 'hub-key.pem']) expect(statSync(path.join(tlsDir, key)).mode & 0o777).toBe(0o600);
    const ca = readFileSync(path.join(tlsDir, 'ca.pem'));
    await expect(fetch(`http://127.0.0.1:${ports.hub}/health`)).rejects.toThrow();
    // The agent for other computers is built and served by the hub on its own port, over https.
    const latest = JSON.parse((await getTls(`https://127.0.0.1:${ports.hub}/agent/latest.json`, ca)).body) as { version: string; sha256: string; url: string };
    expect(latest.version).toMatch(/^\d+\.\d+\.\d+-[0-9a-f]{8}$/);
    expect(latest.url).toMatch(/^https:/);
    const file = await getTls(latest.url, ca);
    expect(file.status).toBe(200);
    expect(file.headers['x-bria-sha256']).toBe(latest.sha256);
    expect(existsSync(path.join(dataDir, 'postgres', 'pgdata', 'PG_VERSION'))).toBe(true);
    const before = brianProcesses(ports);
    expect(before.length).toBeGreaterThanOrEqual(5); // launcher, postgres, hub, web, agent
    run.proc.kill('SIGINT');
    expect(await run.exited).toBe(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(before.filter((pid) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '))).toEqual([]);
    await expect(health(ports.web)).rejects.toThrow();
  }, 300_000);

  it('reuses the data on the next start: same node, no new enrolment; the bot token reaches the bot process only', async () => {
    const fake: FakeTelegram = await startFakeTelegram();
    try {
      const run = launch(ports, { TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.apiRoot, TELEGRAM_ALLOWED_USERS: String(fake.user.id) });
      await run.waitFor(/Press Ctrl-C to stop/, 240_000);
      expect(run.output()).not.toMatch(/Creating the embedded PostgreSQL cluster/);
      expect(run.output()).not.toMatch(/enrolled/);
      expect(run.output()).not.toMatch(/The Telegram bot is off/);
      const h = await untilHealthy(ports.web, 60_000);
      expect(h.nodesTotal).toBe(1);
      // The bot is up when it asks the (fake) Bot API for updates; then each process's own
      // environment, read from /proc, says who holds the token.
      await fake.waitForCall('getUpdates', () => true, 120_000);
      const holders = brianProcesses(ports)
        .map((pid) => {
          try {
            return {
              cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8'),
              hasToken: readFileSync(`/proc/${pid}/environ`, 'utf8')
                .split('\0')
                .some((v) => v.startsWith('TELEGRAM_BOT_TOKEN=')),
            };
          } catch {
            return null;
          }
        })
        .filter((p) => p !== null);
      const role = (cmd: string) =>
        ['apps/bot/src/main.ts', 'packages/core/src/hub/main.ts', 'apps/node-agent/src/main.ts', 'next'].find((r) => cmd.includes(r)) ?? 'other';
      const byRole = new Map<string, boolean>();
      for (const p of holders) if (role(p.cmd) !== 'other') byRole.set(role(p.cmd), (byRole.get(role(p.cmd)) ?? false) || p.hasToken);
      expect(Object.fromEntries(byRole)).toEqual({
        'apps/bot/src/main.ts': true,
        'packages/core/src/hub/main.ts': false,
        'apps/node-agent/src/main.ts': false,
        next: false,
      });
      run.proc.kill('SIGINT');
      expect(await run.exited).toBe(0);
    } finally {
      await fake.close();
    }
  }, 300_000);

  it('refuses to start when a port is taken, naming the port', async () => {
    const blocker = createServer().listen(ports.hub, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      const run = launch(ports);
      expect(await run.exited).toBe(1);
      expect(run.output()).toMatch(new RegExp(`Port ${ports.hub} for the hub \\(BRIA_HUB_PORT\\) is already in use`));
    } finally {
      blocker.close();
    }
  }, 60_000);
});
