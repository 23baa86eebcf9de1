import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { connect as tlsConnect, createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hub } from '../../packages/core/src/hub/server.ts';
import { ensureHubTls, type HubTlsFiles, hubTlsNames } from '../../packages/core/src/hub/tls/hub-tls-files.ts';
import { createLogger } from '../../packages/core/src/log.ts';
import { addComputer } from '../../packages/core/src/services/nodes/add-computer.ts';
import { fileDatabase } from '../../packages/testkit/src/file-database.ts';
import { scratchDir } from '../../packages/testkit/src/scratch.ts';
import { waitUntil } from '../../packages/testkit/src/wait.ts';
import { buildAgentBundle, type BuiltBundle } from '../../scripts/build-agent.ts';

/**
 * Issue 30: the remote link is private by default. The hub serves TLS with Bria's own CA; the
 * install command "Add a computer" shows (curl trusting only that CA, the agent pinning it with
 * --ca-sha256) is pasted into a real shell and reaches the hub on this machine's non-loopback
 * address: the agent connects. The same command with another fingerprint is refused by the agent;
 * a man in the middle with another CA gets neither the download nor a single byte of the agent's
 * request (so never its token).
 */
const { db, tdb } = await fileDatabase();
const dir = scratchDir('bria-pin-');
const ip = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
let bundle: BuiltBundle;
let hub: Hub;
let tls: HubTlsFiles;
let mitm: TlsServer;
let mitmPort = 0;
/** Bytes the man in the middle decrypted from the agent (anything would include the token). */
let mitmReceived = 0;
const shells: ChildProcess[] = [];

beforeAll(async () => {
  if (!ip) throw new Error('this machine has no non-loopback IPv4 address (hostname -I)');
  bundle = await buildAgentBundle({ outDir: path.join(dir, 'dist') });
  tls = await ensureHubTls({ dir: path.join(dir, 'tls'), names: hubTlsNames({ hostname: 'bria-test', extra: [] }), label: 'test' });
  hub = new Hub({
    db,
    databaseUrl: tdb.url,
    host: '0.0.0.0',
    port: 0,
    heartbeatMs: 1000,
    log: createLogger({ name: 't', level: 'silent' }),
    tls: { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) },
    agentBundleDir: path.join(dir, 'dist'),
  });
  await hub.start();
  // Another CA, with a certificate for the very same names: what an interceptor on the network has.
  const other = await ensureHubTls({ dir: path.join(dir, 'mitm-tls'), names: hubTlsNames({ hostname: 'bria-test', extra: [] }), label: 'mitm' });
  mitm = createTlsServer({ cert: readFileSync(other.certFile), key: readFileSync(other.keyFile) }, (client) => {
    const upstream = tlsConnect({ host: '127.0.0.1', port: hub.port, rejectUnauthorized: false });
    client.on('data', (c: Buffer) => (mitmReceived += c.length));
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => mitm.listen(0, '0.0.0.0', () => r()));
  mitmPort = (mitm.address() as { port: number }).port;
}, 120_000);

afterAll(async () => {
  for (const sh of shells) {
    if (sh.pid && sh.exitCode === null && sh.signalCode === null) {
      const gone = new Promise((r) => sh.once('exit', r));
      process.kill(-sh.pid, 'SIGTERM');
      await gone;
    }
  }
  await new Promise((r) => mitm?.close(r));
  await hub?.stop();
});

/** Pastes `command` into `bash -s` in a fresh HOME, as a user on another computer would. */
function paste(command: string, home: string): { shell: ChildProcess; output: () => string; exited: Promise<number | null> } {
  mkdirSync(home, { recursive: true });
  let out = '';
  const shell = spawn('bash', ['-s'], {
    cwd: home,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      HOME: home,
      PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
      BRIA_CLAUDE_BIN: path.join(home, 'no-claude'),
      BRIA_CODEX_BIN: path.join(home, 'no-codex'),
      BRIA_TMUX_SOCKET: `bria-pin-${randomBytes(4).toString('hex')}`,
      LOG_LEVEL: 'info',
    },
  });
  shells.push(shell);
  shell.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  shell.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => shell.once('exit', (code) => r(code)));
  shell.stdin!.end(`${command}\n`);
  return { shell, output: () => out, exited };
}

const unique = (what: string) => `${what} ${randomBytes(3).toString('hex')}`;
const hubCa = () => ({ pem: tls.caPem, sha256: tls.caSha256 });

describe('the install command with the pinned CA, on a non-loopback address', () => {
  it('connects through the real shell line; the command has the pin and no --insecure', async () => {
    const added = await addComputer({ db, name: unique('pinned'), hubPublicUrl: `wss://${ip}:${hub.port}/agent`, bundle, hubCa: hubCa() });
    expect(added.command).toContain(`--ca-sha256 ${tls.caSha256}`);
    expect(added.command).toContain('curl --cacert "$D/hub-ca.pem"');
    expect(added.command).not.toMatch(/--insecure|\s-k\s|http:\/\/|ws:\/\//);
    const run = paste(added.command, path.join(dir, 'home-ok'));
    await waitUntil('the pinned agent online', async () => (await db.node.findUniqueOrThrow({ where: { id: added.nodeId } })).online, 60_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}\n${run.output()}`);
      },
    );
    const d = path.join(dir, 'home-ok', '.local/share/bria-agent');
    expect(readFileSync(path.join(d, 'hub-ca.pem'), 'utf8').trim()).toBe(tls.caPem.trim());
    expect(run.output()).toContain(`"msg":"Connected to the hub at wss://${ip}:${hub.port}/agent"`);
  }, 120_000);

  it('refuses a hub whose CA is not the pinned one (wrong fingerprint), with a clear message', async () => {
    const added = await addComputer({ db, name: unique('wrong pin'), hubPublicUrl: `wss://${ip}:${hub.port}/agent`, bundle, hubCa: hubCa() });
    const wrong = added.command.replace(tls.caSha256, 'ab'.repeat(32));
    const run = paste(wrong, path.join(dir, 'home-wrong'));
    await waitUntil('the refusal', async () => run.output().includes('did not present the certificate authority this agent pins'), 60_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}\n${run.output()}`);
      },
    );
    expect(run.output()).toContain(tls.caSha256);
    const node = await db.node.findUniqueOrThrow({ where: { id: added.nodeId } });
    expect(node.online).toBe(false);
    expect(node.connectedAt).toBeNull();
  }, 120_000);

  it('a man in the middle with another CA gets no download and not one byte of the agent (no token)', async () => {
    const added = await addComputer({ db, name: unique('mitm'), hubPublicUrl: `wss://${ip}:${mitmPort}/agent`, bundle, hubCa: hubCa() });
    // The download: curl trusts only the pinned CA, so the command stops before anything is stored.
    const run = paste(added.command, path.join(dir, 'home-mitm'));
    expect(await run.exited).not.toBe(0);
    expect(existsSync(path.join(dir, 'home-mitm', '.local/share/bria-agent/bria-agent.mjs'))).toBe(false);
    // The agent itself (installed by the first test), started against the interceptor with the right pin.
    const d = path.join(dir, 'home-ok', '.local/share/bria-agent');
    writeFileSync(path.join(dir, 'home-mitm-token'), `${added.token}\n`, { mode: 0o600 });
    const direct = paste(
      `exec node "${d}/bria-agent.mjs" --hub wss://${ip}:${mitmPort}/agent --token-file "${path.join(dir, 'home-mitm-token')}" --dir "${path.join(dir, 'home-mitm', 'state')}" --ca-sha256 ${tls.caSha256}`,
      path.join(dir, 'home-mitm'),
    );
    await waitUntil('the agent refuses the interceptor', async () => direct.output().includes('did not present the certificate authority'), 60_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}\n${direct.output()}`);
      },
    );
    expect(mitmReceived).toBe(0);
    expect((await db.node.findUniqueOrThrow({ where: { id: added.nodeId } })).connectedAt).toBeNull();
  }, 120_000);
});
