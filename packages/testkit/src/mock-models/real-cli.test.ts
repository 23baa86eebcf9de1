import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeBin, codexBin, createCliHome } from '../cli-homes.ts';
import { startAnthropicMock } from './anthropic-mock.ts';
import { startOpenAIMock } from './openai-mock.ts';
import type { MockServer } from './types.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

// Async on purpose: the mocks live in this process, so a sync spawn would starve them.
function run(cmd: string, args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { cwd, env, timeout: 45_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
    // Codex reads extra prompt text from an open stdin.
    child.stdin?.end();
  });
}

async function findFile(dir: string, suffix: string): Promise<string | null> {
  if (!existsSync(dir)) return null;
  for (const name of await readdir(dir, { recursive: true })) if (name.endsWith(suffix)) return join(dir, name);
  return null;
}

describe('real CLIs against the mocks with a created home', () => {
  let root: string;
  let work: string;
  let anthropic: MockServer;
  let openai: MockServer;
  let env: Record<string, string>;
  let home: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'bria-real-cli-'));
    work = join(root, 'work');
    await mkdir(work);
    anthropic = await startAnthropicMock();
    openai = await startOpenAIMock();
    ({ home, env } = await createCliHome({ root, trustedDirs: [work], anthropicUrl: anthropic.url, openaiUrl: openai.url }));
  });
  afterAll(async () => {
    await anthropic?.close();
    await openai?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('claude -p gets the mock reply and the mock sees its session header', async () => {
    const sessionId = randomUUID();
    const out = await run(claudeBin, ['-p', 'hello', '--session-id', sessionId], work, env);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const turn = await anthropic.waitForRequest((r) => r.kind === 'turn' && r.sessionId === sessionId, 1000);
    expect(turn).toMatchObject({ path: '/v1/messages?beta=true', userText: 'hello', stream: true, status: 200, done: true });
    expect(turn.headers['x-api-key']).toBeUndefined();
    expect(out.stdout).toBe(`MOCK-REPLY-${turn.id}: you said "hello"\n`);
    expect(anthropic.userTexts(sessionId)).toEqual(['hello']);
    // The CLI really accepted the answer: its own journal for that session exists in the home.
    expect(await findFile(join(home, '.claude', 'projects'), `${sessionId}.jsonl`)).not.toBeNull();
  });

  it('claude -p surfaces FAIL400 as an API error', async () => {
    const out = await run(claudeBin, ['-p', 'please FAIL400'], work, env);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('API Error: 400 mock fail400');
    expect(anthropic.requests.some((r) => r.behaviour === 'fail400' && r.status === 400)).toBe(true);
  });

  it('codex exec gets the mock reply and the mock sees its session header', async () => {
    const out = await run(codexBin, ['--no-daemon', 'exec', '--skip-git-repo-check', 'hello'], work, env);
    expect(out.code).toBe(0);
    const turn = await openai.waitForRequest((r) => r.kind === 'turn' && r.userText === 'hello', 1000);
    expect(turn).toMatchObject({ path: '/v1/responses', stream: true, status: 200, done: true });
    expect(turn.headers.originator).toBe('codex_exec');
    expect(turn.headers.authorization).toBeUndefined();
    expect(turn.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(out.stdout).toBe(`MOCK-REPLY-${turn.id}: you said "hello"\n`);
    expect(await findFile(join(home, '.codex', 'sessions'), `-${turn.sessionId}.jsonl`)).not.toBeNull();
    // No background app-server copy was installed into the throw-away home.
    expect(existsSync(join(home, '.codex', 'packages'))).toBe(false);
  });

  it('codex exec surfaces FAIL400 with the mock error body', async () => {
    const out = await run(codexBin, ['--no-daemon', 'exec', '--skip-git-repo-check', 'now FAIL400'], work, env);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('"message":"mock fail400"');
  });
});
