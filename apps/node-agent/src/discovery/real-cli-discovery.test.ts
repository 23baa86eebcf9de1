import { execFile, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeBin, codexBin, createCliHome } from '@bria/testkit/cli-homes';
import { type MockServer, startAnthropicMock, startOpenAIMock } from '@bria/testkit/mock-models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscoveryIndex } from './discovery-index.ts';
import { scanSessions } from './scan-sessions.ts';
import type { DiscoveredSession } from './session-types.ts';

// The pinned CLIs write their journals for real (against local mock model servers); discovery
// must find those sessions with the ids the CLIs used on the wire.

function run(cmd: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { cwd, env, timeout: 45_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('discovery of sessions written by the real CLIs', () => {
  let root: string;
  let work: string;
  let home: string;
  let env: Record<string, string>;
  let anthropic: MockServer;
  let openai: MockServer;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'bria-disc-real-'));
    work = join(root, 'work dir');
    mkdirSync(work);
    work = realpathSync(work);
    anthropic = await startAnthropicMock();
    openai = await startOpenAIMock();
    ({ home, env } = await createCliHome({ root, trustedDirs: [work], anthropicUrl: anthropic.url, openaiUrl: openai.url }));
  });
  afterAll(async () => {
    await anthropic?.close();
    await openai?.close();
    // A CLI that is still shutting down may write into its home while it is removed.
    // Keep trying for a while; a leftover temp folder is not a test failure.
    for (let i = 0; i < 50; i++) {
      try {
        rmSync(root, { recursive: true, force: true });
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  });

  it('finds the claude -p and codex exec sessions with their ids, cwd and first prompt', async () => {
    const [claude, codex] = await Promise.all([
      run(claudeBin, ['-p', 'hello'], work, env),
      run(codexBin, ['exec', '--skip-git-repo-check', 'hello'], work, env),
    ]);
    expect(claude.code).toBe(0);
    expect(codex.code).toBe(0);
    const claudeTurn = anthropic.requests.find((r) => r.kind === 'turn' && r.userText === 'hello');
    const codexTurn = openai.requests.find((r) => r.kind === 'turn' && r.userText === 'hello');
    expect(claudeTurn?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(codexTurn?.sessionId).toMatch(/^[0-9a-f-]{36}$/);

    const { sessions, problems } = await scanSessions({
      claudeHome: join(home, '.claude'),
      codexHome: env.CODEX_HOME ?? join(home, '.codex'),
      state: join(root, 'bria-state'),
    });
    expect(problems).toEqual([]);
    const byExecutor = Object.fromEntries(sessions.map((s) => [s.executor, s]));
    expect(sessions).toHaveLength(2);
    expect(byExecutor.claude).toMatchObject({
      nativeId: claudeTurn?.sessionId,
      cwd: work,
      firstPrompt: 'hello',
      lastPrompt: 'hello',
      userTurns: 1,
      cliVersion: '2.1.197',
      originator: 'sdk-cli',
      live: false,
    });
    expect(byExecutor.codex).toMatchObject({
      nativeId: codexTurn?.sessionId,
      cwd: work,
      firstPrompt: 'hello',
      userTurns: 1,
      cliVersion: '0.171.0',
      originator: 'codex_exec',
      source: 'exec',
    });
    for (const s of sessions) expect(Date.parse(s.lastActivityAt ?? '')).toBeGreaterThanOrEqual(Date.parse(s.startedAt ?? ''));
  });

  it('reports an interactive Claude session as live while its process runs, and not after', async () => {
    const sessionId = randomUUID();
    const socket = ['-L', `bria-disc-live-${process.pid}`];
    const tmux = (...args: string[]) => execFileSync('tmux', [...socket, ...args], { encoding: 'utf8' });
    const script = join(root, 'claude-live.sh');
    const exports = Object.entries(env).map(([k, v]) => `export ${k}=${quote(v)}`);
    writeFileSync(script, `${exports.join('\n')}\ncd ${quote(work)} && exec ${quote(claudeBin)} --session-id ${sessionId}\n`);
    const index = new DiscoveryIndex({ claudeHome: join(home, '.claude'), codexHome: null });
    const find = async () => (await index.scan()).sessions.find((s) => s.nativeId === sessionId);

    tmux('new-session', '-d', '-s', 'c', '-x', '200', '-y', '50', `bash ${quote(script)}`);
    let running: DiscoveredSession;
    const screen = () => {
      try {
        return tmux('capture-pane', '-p', '-t', 'c');
      } catch (error) {
        return `(no pane: ${(error as Error).message})`;
      }
    };
    try {
      await waitFor(() => (screen().includes('? for shortcuts') ? true : undefined), 20_000).catch((error: Error) => {
        throw new Error(`${error.message}; screen:\n${screen()}`);
      });
      execFileSync('tmux', [...socket, 'load-buffer', '-b', 'p', '-'], { input: 'hello live' });
      tmux('paste-buffer', '-p', '-d', '-b', 'p', '-t', 'c');
      // On a busy machine the TUI sometimes drops an Enter that comes right after start-up; this
      // test is about discovery, not driving, so it presses Enter again until the model is asked.
      for (let attempt = 0; attempt < 5; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        tmux('send-keys', '-t', 'c', 'Enter');
        const asked = await anthropic.waitForRequest((r) => r.kind === 'turn' && r.sessionId === sessionId, 3000).catch(() => null);
        if (asked) break;
      }
      running = await waitFor(async () => {
        const s = await find();
        return s?.userTurns === 1 ? s : undefined;
      }, 20_000).catch((error: Error) => {
        throw new Error(`${error.message}; screen:\n${screen()}`);
      });
    } finally {
      tmux('kill-server');
    }
    expect(running).toMatchObject({ executor: 'claude', cwd: work, firstPrompt: 'hello live', originator: 'cli', live: true });
    // SIGHUP from the killed tmux server ends the CLI, which releases the session.
    const ended = await waitFor(async () => {
      const s = await find();
      return s?.live === false ? s : undefined;
    }, 15_000);
    expect(ended.userTurns).toBe(1);
  });
});
