import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeBin, createCliHome } from '@bria/testkit/cli-homes';
import { type MockServer, startAnthropicMock, startOpenAIMock } from '@bria/testkit/mock-models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from './read-journal.ts';

// `claude -p` journals no `turn_duration`; its answer ends with `stop_reason:"end_turn"`.

function claudePrint(prompt: string, cwd: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const child = execFile(claudeBin, ['-p', prompt], { cwd, env, timeout: 60_000, killSignal: 'SIGKILL' }, (err) => {
      resolve(err ? (typeof err.code === 'number' ? err.code : -1) : 0);
    });
    child.stdin?.end();
  });
}

describe('read_journal of a real claude -p session', () => {
  let root: string;
  let work: string;
  let claudeHome: string;
  let env: Record<string, string>;
  let anthropic: MockServer;
  let openai: MockServer;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'bria-rj-print-'));
    work = join(root, 'work');
    mkdirSync(work);
    work = realpathSync(work);
    anthropic = await startAnthropicMock();
    openai = await startOpenAIMock();
    const cli = await createCliHome({ root, trustedDirs: [work], anthropicUrl: anthropic.url, openaiUrl: openai.url });
    env = cli.env;
    claudeHome = join(cli.home, '.claude');
  });
  afterAll(async () => {
    await anthropic?.close();
    await openai?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('shows the answer of each print-mode turn as completed, not as a turn without an end', async () => {
    expect(await claudePrint('hello print', work, env)).toBe(0);
    const first = anthropic.requests.find((r) => r.kind === 'turn' && r.userText === 'hello print');
    const nativeSessionId = first?.sessionId ?? '';
    expect(nativeSessionId).toMatch(/^[0-9a-f-]{36}$/);
    // A second print-mode turn on the same conversation (`--resume`) hangs off the first answer.
    expect(
      await new Promise<number>((resolve) => {
        const child = execFile(
          claudeBin,
          ['-p', '--resume', nativeSessionId, 'FAIL400 please'],
          { cwd: work, env, timeout: 60_000, killSignal: 'SIGKILL' },
          (err) => {
            resolve(err ? (typeof err.code === 'number' ? err.code : -1) : 0);
          },
        );
        child.stdin?.end();
      }),
    ).not.toBe(-1);

    const r = await readJournal({ executor: 'claude', nativeSessionId }, { claudeHome, codexHome: null, archiveDir: join(root, 'archive') });
    if (!r.ok) throw new Error(r.error);
    expect(r.turns.map((t) => [t.prompt, t.state])).toEqual([
      ['hello print', 'completed'],
      ['FAIL400 please', 'api_error'],
    ]);
    expect(r.turns[0]?.final).toMatch(/^MOCK-REPLY-\d+: you said "hello print"$/);
    expect(r.turns[1]?.detail).toContain('mock fail400');
  });
});
