// Issue 30: the hook channel never lives where another user can reach it. Two real user ids: this
// test runs as root (the agent's user) and makes a throwaway user that plays the neighbour on a
// shared machine (pre-creating the folder, a symlink, listening in it, connecting to the socket).
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HookChannel } from './hook-channel.ts';
import { checkPrivateFolder, socketFolder } from './hooks-folder.ts';

const asRoot = process.getuid?.() === 0;
const user = `bria-n${randomUUID().slice(0, 6)}`;
let uid = -1;
let shared = '';

/** Runs a node script as the neighbour; its stdout. */
function asNeighbour(script: string): string {
  const r = spawnSync('runuser', ['-u', user, '--', process.execPath, '-e', script], { encoding: 'utf8', timeout: 30_000 });
  return `${r.stdout}${r.stderr}`.trim();
}

beforeAll(() => {
  if (!asRoot) return;
  execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', user]);
  uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
  // A shared folder like /tmp (world-writable, sticky), private to this test run.
  shared = mkdtempSync(join(tmpdir(), 'bria-shared-'));
  chmodSync(shared, 0o1777);
});
afterAll(() => {
  if (!asRoot) return;
  rmSync(shared, { recursive: true, force: true });
  spawnSync('userdel', [user]);
});

// Two user ids need root (useradd, runuser); CI and the dev containers run the suite as root.
describe.skipIf(!asRoot)('the hooks folder with two real user ids', () => {
  const deepAgentDir = () => join(shared, 'agent', 'd'.repeat(120));

  it('an agent folder too deep for a socket and no $XDG_RUNTIME_DIR: remote answers off, no shared fallback', async () => {
    const agentDir = mkdtempSync(join(tmpdir(), 'bria-deep-'));
    const dir = join(agentDir, 'x'.repeat(110), 'hooks');
    const socketDir = socketFolder({ stateDir: dir, runtimeDir: undefined, agentDir });
    expect(socketDir).toBeNull();
    const channel = new HookChannel({ dir, socketDir, sessionRoot: () => null });
    await expect(channel.open()).rejects.toThrow(/remote answers are off/);
    expect(channel.available).toBe(false);
    expect(channel.offReason).toBe('no_private_short_path');
    rmSync(agentDir, { recursive: true, force: true });
  });

  it('the neighbour pre-creates the socket folder and listens in it: refused, the CLIs get no hooks, nothing reaches the neighbour', async () => {
    const agentDir = deepAgentDir();
    const dir = join(agentDir, 'hooks');
    const socketDir = socketFolder({ stateDir: dir, runtimeDir: shared, agentDir });
    expect(socketDir?.startsWith(`${shared}/bria-`)).toBe(true);
    const listening = asNeighbour(`
      const fs = require('node:fs'); const net = require('node:net');
      fs.mkdirSync(${JSON.stringify(socketDir)}, { mode: 0o777 }); fs.chmodSync(${JSON.stringify(socketDir)}, 0o777);
      const s = net.createServer((c) => { console.log('GOT A CONNECTION'); });
      s.listen(${JSON.stringify(join(socketDir as string, 'trap.sock'))}, () => { console.log('listening'); s.close(); });
    `);
    expect(listening).toBe('listening');
    expect(lstatSync(socketDir as string).uid).toBe(uid);
    const channel = new HookChannel({ dir, socketDir, sessionRoot: () => null });
    await expect(channel.open()).rejects.toThrow(/owned by uid/);
    expect(channel.offReason).toBe('folder_not_private');
    expect(channel.available).toBe(false);
    // Nothing of the agent's went into the neighbour's folder.
    expect(existsSync(join(socketDir as string, 'agent.sock'))).toBe(false);
    await channel.close();
  });

  it('a symlink the neighbour planted at the socket folder path is refused, never followed', async () => {
    const agentDir = join(shared, 'agent2', 'e'.repeat(120));
    const dir = join(agentDir, 'hooks');
    const socketDir = socketFolder({ stateDir: dir, runtimeDir: shared, agentDir }) as string;
    asNeighbour(
      `const fs = require('node:fs'); fs.mkdirSync(${JSON.stringify(`${socketDir}-target`)}, { mode: 0o777 }); fs.symlinkSync(${JSON.stringify(`${socketDir}-target`)}, ${JSON.stringify(socketDir)});`,
    );
    expect(lstatSync(socketDir).isSymbolicLink()).toBe(true);
    const channel = new HookChannel({ dir, socketDir, sessionRoot: () => null });
    await expect(channel.open()).rejects.toThrow(/symlink/);
    expect(channel.offReason).toBe('folder_not_private');
    expect(existsSync(join(`${socketDir}-target`, 'agent.sock'))).toBe(false);
  });

  it('a private folder is used (made 0700, an own wider one narrowed); the neighbour cannot connect', async () => {
    const agentDir = mkdtempSync(join(tmpdir(), 'bria-own-'));
    const dir = join(agentDir, 'hooks');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const channel = new HookChannel({ dir, sessionRoot: () => null });
    await channel.open();
    try {
      expect(channel.available).toBe(true);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(checkPrivateFolder(dir, 0)).toEqual({ ok: true });
      expect(checkPrivateFolder(dir, uid)).toMatchObject({ ok: false });
      const tried = asNeighbour(`
        const c = require('node:net').connect(${JSON.stringify(channel.socketPath)});
        c.on('connect', () => { console.log('CONNECTED'); c.destroy(); });
        c.on('error', (e) => console.log(e.code));
      `);
      expect(tried).toBe('EACCES');
    } finally {
      await channel.close();
      rmSync(agentDir, { recursive: true, force: true });
    }
  });
});

// Without root the folder rules still hold for the agent's own user (the lstat checks, pure enough).
describe('checkPrivateFolder', () => {
  it('refuses a symlink, a file, a wider mode; accepts an own 0700 folder', () => {
    const root = mkdtempSync(join(tmpdir(), 'bria-check-'));
    const me = process.getuid?.() ?? 0;
    const ok = join(root, 'ok');
    mkdirSync(ok, { mode: 0o700 });
    chmodSync(ok, 0o700);
    expect(checkPrivateFolder(ok, me)).toEqual({ ok: true });
    const wide = join(root, 'wide');
    mkdirSync(wide);
    chmodSync(wide, 0o755);
    expect(checkPrivateFolder(wide, me)).toMatchObject({ ok: false, detail: /mode 755/ });
    const link = join(root, 'link');
    symlinkSync(ok, link);
    expect(checkPrivateFolder(link, me)).toMatchObject({ ok: false, detail: /symlink/ });
    expect(checkPrivateFolder(join(root, 'none'), me)).toMatchObject({ ok: false });
    rmSync(root, { recursive: true, force: true });
  });
});
