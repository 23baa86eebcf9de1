import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTrustedDir, claudeBin, codexBin, createCliHome } from '../cli-homes.ts';
import { startAnthropicMock } from './anthropic-mock.ts';
import { startOpenAIMock } from './openai-mock.ts';
import { createTmuxTestServer, type TmuxTestServer, writeLaunchScript } from './tmux-test-server.ts';
import type { MockServer } from './types.ts';

const DIALOGS = /trust|API key|sign in|onboarding|Bypass Permissions mode/i;
// Claude only asks for a title when the first prompt is long enough, so use a real sentence.
const PROMPT = 'please explain how the build system of this project works in detail';

async function readAll(dir: string, nameEnd: string): Promise<string> {
  if (!existsSync(dir)) return '';
  let text = '';
  for (const name of await readdir(dir, { recursive: true })) {
    if (name.endsWith(nameEnd)) text += await readFile(join(dir, name), 'utf8');
  }
  return text;
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('created home gives dialog-free interactive TUIs in tmux', () => {
  let root: string;
  let anthropic: MockServer;
  let openai: MockServer;
  let home: string;
  let env: Record<string, string>;
  let tmux: TmuxTestServer;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'bria-real-tui-'));
    anthropic = await startAnthropicMock();
    openai = await startOpenAIMock();
    ({ home, env } = await createCliHome({
      root,
      trustedDirs: [join(root, 'work')],
      anthropicUrl: anthropic.url,
      openaiUrl: openai.url,
    }));
    tmux = createTmuxTestServer(env.PATH ?? '');
  });
  afterAll(async () => {
    await tmux?.destroy();
    await anthropic?.close();
    await openai?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('claude opens at the prompt in a child of a trusted folder, and in bypass mode as root', async () => {
    // Created after the home: Claude's trust of the parent covers it.
    const cwd = join(root, 'work', 'child');
    await mkdir(cwd, { recursive: true });
    const script = join(root, 'claude.sh');
    await writeLaunchScript(script, env, [claudeBin]);
    const bypass = join(root, 'claude-bypass.sh');
    await writeLaunchScript(bypass, env, [claudeBin, '--dangerously-skip-permissions']);
    await tmux.start('claude', cwd, script);
    await tmux.start('claude-bypass', cwd, bypass);
    const ready = await tmux.waitForScreen('claude', (s) => s.includes('? for shortcuts'), 30_000);
    expect(ready).toContain('❯');
    expect(ready).not.toMatch(DIALOGS);
    const bypassReady = await tmux.waitForScreen('claude-bypass', (s) => s.includes('bypass permissions on'), 30_000);
    expect(bypassReady).not.toMatch(DIALOGS);

    await tmux.submit('claude', PROMPT);
    const turn = await anthropic.waitForRequest((r) => r.kind === 'turn' && r.userText === PROMPT, 15_000);
    expect(turn.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const done = await tmux.waitForScreen('claude', (s) => s.includes(`MOCK-REPLY-${turn.id}: you said`), 15_000);
    expect(done).not.toMatch(DIALOGS);
    const title = await anthropic.waitForRequest((r) => r.kind === 'title' && r.sessionId === turn.sessionId, 15_000);
    expect(title.reply).toBe(`{"title":"Mock title ${title.id}"}`);
    expect(anthropic.userTexts(turn.sessionId ?? '')).toEqual([PROMPT]);
    // The CLI took the title from our JSON answer into its own journal.
    const journal = join(home, '.claude', 'projects');
    expect(await eventually(async () => (await readAll(journal, '.jsonl')).includes(`"aiTitle":"Mock title ${title.id}"`), 10_000)).toBe(true);

    // Escape during a stalled answer: the mock sees the CLI drop the stream.
    await tmux.submit('claude', 'please STALL now');
    const stalled = await anthropic.waitForRequest((r) => r.behaviour === 'stall', 15_000);
    // Claude shows an unfinished block only as a token count, not as text.
    await tmux.waitForScreen('claude', (s) => s.includes('esc to interrupt'), 15_000);
    expect(stalled.done).toBe(false);
    await tmux.tmux('send-keys', '-t', '=claude:', 'Escape');
    expect(await anthropic.waitForRequest((r) => r.id === stalled.id && r.done, 10_000)).toMatchObject({ clientClosed: true });
  });

  it('codex --no-daemon opens at the prompt in a git repo trusted later with addTrustedDir', async () => {
    const repo = join(root, 'repo');
    await mkdir(repo);
    await promisify(execFile)('git', ['init', '-q', repo]);
    // Control: the same kind of folder, untrusted, does ask.
    const other = join(root, 'other-repo');
    await mkdir(other);
    await promisify(execFile)('git', ['init', '-q', other]);
    await addTrustedDir(home, repo);

    const script = join(root, 'codex.sh');
    await writeLaunchScript(script, env, [codexBin, '--no-daemon']);
    await tmux.start('codex-untrusted', other, script);
    await tmux.waitForScreen('codex-untrusted', (s) => /trust/i.test(s), 30_000);
    await tmux.start('codex', repo, script);
    const ready = await tmux.waitForScreen('codex', (s) => s.includes('? for shortcuts'), 30_000);
    expect(ready).toContain('Ask Codex to do anything');
    expect(ready).not.toMatch(DIALOGS);

    await tmux.submit('codex', PROMPT);
    const turn = await openai.waitForRequest((r) => r.kind === 'turn' && r.userText === PROMPT, 15_000);
    expect(turn.headers.originator).toBe('codex-tui');
    await tmux.waitForScreen('codex', (s) => s.includes(`MOCK-REPLY-${turn.id}: you said`), 15_000);
    const title = await openai.waitForRequest((r) => r.kind === 'title', 15_000);
    expect(title.reply).toBe(`{"title":"Mock title ${title.id}"}`);
    const index = join(home, '.codex');
    expect(await eventually(async () => (await readAll(index, 'session_index.jsonl')).includes(`"thread_name":"Mock title ${title.id}"`), 10_000)).toBe(true);
    expect(existsSync(join(home, '.codex', 'packages'))).toBe(false);

    await tmux.submit('codex', 'please HANG now');
    const hung = await openai.waitForRequest((r) => r.behaviour === 'hang', 15_000);
    await tmux.tmux('send-keys', '-t', '=codex:', 'Escape');
    expect(await openai.waitForRequest((r) => r.id === hung.id && r.done, 10_000)).toMatchObject({ clientClosed: true });
  });
});
