import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBundleName } from '../../packages/core/src/agent-bundle.ts';
import { installCommand } from '../../packages/core/src/services/nodes/install-command.ts';
import { claudeBin } from '../../packages/testkit/src/cli-homes.ts';
import { startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';
import { buildAgentBundle, type BuiltBundle } from '../../scripts/build-agent.ts';

/**
 * Issue 17's promise, end to end: the one-file agent, downloaded by the install command from a
 * running hub into a fresh HOME (no repository, no node_modules anywhere above it), started with
 * plain `node`, runs a real Claude session against the mock model. The token reaches it only
 * through its 0600 file: never in any process's command line.
 */
const out = mkdtempSync(path.join(tmpdir(), 'bria-bundle-'));
let bundle: BuiltBundle;
let sys: System;
let shell: ChildProcess | undefined;
let agentOutput = '';
let installedToOnlineMs = 0;

/** The processes whose parent is `pid` (Linux /proc). */
function children(pid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(name));
    } catch {}
  }
  return found;
}
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

beforeAll(async () => {
  bundle = await buildAgentBundle({ outDir: path.join(out, 'dist') });
  sys = await startSystem({ executors: ['claude'], hub: { agentBundleDir: path.join(out, 'dist') } });
}, 180_000);

afterAll(async () => {
  if (shell?.pid && shell.exitCode === null) {
    const gone = new Promise((r) => shell!.once('exit', r));
    process.kill(-shell.pid, 'SIGTERM');
    await gone;
  }
  await sys?.dispose();
  rmSync(out, { recursive: true, force: true });
});

describe('the one-file agent', () => {
  it('is one file with its checksum and version beside it', () => {
    const sha = readFileSync(path.join(out, 'dist', 'bria-agent.mjs.sha256'), 'utf8');
    expect(sha).toBe(`${bundle.sha256}  bria-agent.mjs\n`);
    expect(bundle.version).toMatch(/^\d+\.\d+\.\d+-[0-9a-f]{8}$/);
    expect(readdirSync(path.join(out, 'dist')).sort()).toEqual(['bria-agent.mjs', 'bria-agent.mjs.sha256', 'latest.json']);
  });

  it('installs from the hub with the one command, connects, and runs a real Claude session; the token is never on a command line', async () => {
    const hubUrl = `ws://127.0.0.1:${sys.hub.port}/agent`;
    const latest = await (await fetch(`http://127.0.0.1:${sys.hub.port}/agent/latest.json`)).json();
    expect(latest).toEqual({
      version: bundle.version,
      sha256: bundle.sha256,
      url: `http://127.0.0.1:${sys.hub.port}/agent/${agentBundleName(bundle.version)}`,
    });
    const command = installCommand({ hubUrl, bundle, token: sys.agentToken });
    const empty = mkdtempSync(path.join(out, 'cwd-'));
    const started = Date.now();
    // As on another computer: node, tmux, curl and the CLI; no repository, no NODE_PATH. The
    // command is pasted into a shell (its input), so no argument of any process holds the token.
    shell = spawn('bash', ['-s'], {
      cwd: empty,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...sys.cliEnv,
        PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
        BRIA_CLAUDE_BIN: claudeBin,
        BRIA_CODEX_BIN: path.join(empty, 'no-codex'),
        BRIA_TMUX_SOCKET: sys.tmuxSocket,
        LOG_LEVEL: 'info',
      },
    });
    shell.stdout!.on('data', (c: Buffer) => (agentOutput += c.toString()));
    shell.stderr!.on('data', (c: Buffer) => (agentOutput += c.toString()));
    shell.stdin!.end(`${command}\n`);
    await waitUntil(
      'the installed agent online with the bundle version',
      async () => {
        const n = await sys.db.node.findUniqueOrThrow({ where: { id: sys.nodeId } });
        return n.online && n.agentVersion === bundle.version;
      },
      60_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${agentOutput}`);
    });
    installedToOnlineMs = Date.now() - started;

    const dir = path.join(sys.home, '.local/share/bria-agent');
    expect(readFileSync(path.join(dir, agentBundleName(bundle.version)))).toEqual(readFileSync(bundle.file));
    // pino logs bundled (no transport): JSON lines on stdout.
    await waitUntil('the connected line', async () => agentOutput.includes('"msg":"Connected to the hub at'), 10_000);

    const [agentPid] = children(shell.pid!);
    expect(agentPid).toBeDefined();
    const argv = cmdline(agentPid!);
    expect(argv).toEqual(['node', `${dir}/bria-agent.mjs`, '--hub', hubUrl, '--token-file', `${dir}/token`, '--dir', `${dir}/state`]);
    for (const pid of [shell.pid!, agentPid!]) expect(cmdline(pid).join(' ')).not.toContain(sys.agentToken);
    expect(readFileSync(`/proc/${agentPid}/environ`, 'utf8')).not.toContain(sys.agentToken);

    const s = await sys.createSession('claude', sys.folder('bundle'));
    await sys.waitState(s.id, 'Ready', 90_000);
    await sys.send(s.id, 'hello from the bundled agent');
    const msgs = await sys.waitMessages(s.id, (st) => st[0] === 'completed', 90_000);
    expect(msgs[0]!.finalText).toMatch(/MOCK-REPLY/);
    // The CLI's permission hook came out of the bundle into the agent's folder.
    expect(existsSync(path.join(dir, 'state', 'bin', `permission-hook-${bundle.version}.mjs`))).toBe(true);
    // The CLI's environment does not carry the agent's variables either.
    const id = await sys.identity(s.id);
    expect(readFileSync(`/proc/${id.cliPid}/environ`, 'utf8')).not.toContain(sys.agentToken);
    console.log(`[figures] bundle ${bundle.bytes} bytes, built in ${bundle.ms} ms; install command → node online ${installedToOnlineMs} ms`);
  }, 240_000);
});
