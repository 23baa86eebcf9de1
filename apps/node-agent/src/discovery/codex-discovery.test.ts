import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanSessions } from './scan-sessions.ts';
import { appendCodexTitle, codexLines, type Turn, writeCodexSession } from './synthetic-store.ts';

let root: string;
let codexHome: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bria-disc-codex-'));
  codexHome = join(root, '.codex');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const ID = '01a23651-d848-7b63-9a2f-558796e706b5';
const START = '2026-12-02T10:34:23.192Z';
const turns = (n: number, first = 0): Turn[] =>
  Array.from({ length: n }, (_, i) => ({
    prompt: `codex prompt ${first + i}`,
    reply: `r${i}`,
    at: new Date(Date.parse(START) + (first + i) * 60_000).toISOString(),
    toolBytes: 3000,
  }));

describe('Codex discovery', () => {
  it('reads session_meta, the first UserMessage item and the last session_index title', async () => {
    const file = writeCodexSession(codexHome, { id: ID, cwd: '/work-dir/repo', startedAt: START, turns: turns(3), originator: 'codex_exec', source: 'exec' });
    appendCodexTitle(codexHome, ID, 'First name', START);
    appendCodexTitle(codexHome, '01a23651-0000-7000-8000-000000000000', 'Other thread', START);
    appendCodexTitle(codexHome, ID, 'Renamed thread', START);
    const { sessions, problems } = await scanSessions({ claudeHome: null, codexHome });
    expect(problems).toEqual([]);
    expect(sessions).toEqual([
      {
        executor: 'codex',
        nativeId: ID,
        cwd: '/work-dir/repo',
        file,
        startedAt: START,
        lastActivityAt: '2026-12-02T10:36:24.192Z',
        title: 'Renamed thread',
        firstPrompt: 'codex prompt 0',
        lastPrompt: 'codex prompt 2',
        userTurns: 3,
        cliVersion: '0.171.0',
        originator: 'codex_exec',
        source: 'exec',
        live: null,
      },
    ]);
    expect(file).toMatch(/sessions\/2026\/12\/02\/rollout-2026-12-02T10-34-23-01a23651-/);
  });

  it('counts a resumed session appended to the same rollout without a second session_meta', async () => {
    const spec = { id: ID, cwd: '/w', startedAt: START, turns: turns(1) };
    const file = writeCodexSession(codexHome, spec);
    const state = join(root, 'state');
    await scanSessions({ claudeHome: null, codexHome, state });
    appendFileSync(file, `${codexLines({ ...spec, turns: turns(2, 1) }, 50).join('\n')}\n`);
    const { sessions } = await scanSessions({ claudeHome: null, codexHome, state });
    expect(sessions[0]).toMatchObject({ userTurns: 3, firstPrompt: 'codex prompt 0', lastPrompt: 'codex prompt 2', startedAt: START });
  });
});
