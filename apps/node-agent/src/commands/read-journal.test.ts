import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { READ_JOURNAL_MAX_BYTES, zReadJournalResult } from '@bria/core/protocol';
import { archivePath } from '../archive/index.ts';
import { readJournal } from './read-journal.ts';

// Journals captured from real CLI runs against the mock model servers (see journal/*.test.ts).
const claudeFixture = new URL('../journal/fixtures/claude-session.jsonl', import.meta.url).pathname;
const codexFixture = new URL('../journal/fixtures/codex-rollout.jsonl', import.meta.url).pathname;
const CLAUDE_ID = '85c38f52-9a5b-4ae8-a3ae-a71190a8a108';
const CODEX_ID = '01a2368c-d855-7312-9f0e-4ffe2a850ce0';

const root = mkdtempSync(path.join(tmpdir(), 'bria-rj-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dirs = { claudeHome: path.join(root, 'claude'), codexHome: path.join(root, 'codex'), archiveDir: path.join(root, 'archive') };
const claudeFile = path.join(dirs.claudeHome, 'projects', '-tmp-work', `${CLAUDE_ID}.jsonl`);
const codexFile = path.join(dirs.codexHome, 'sessions', '2026', '12', '02', `rollout-2026-12-02T11-38-52-${CODEX_ID}.jsonl`);
mkdirSync(path.dirname(claudeFile), { recursive: true });
mkdirSync(path.dirname(codexFile), { recursive: true });
copyFileSync(claudeFixture, claudeFile);
copyFileSync(codexFixture, codexFile);

describe('read_journal on the agent', () => {
  it('Claude: turns by uuid chain, finals, interrupted and dropped prompts', async () => {
    const r = await readJournal({ executor: 'claude', nativeSessionId: CLAUDE_ID }, dirs);
    expect(zReadJournalResult.safeParse(r).success).toBe(true);
    if (!r.ok) throw new Error(r.error);
    expect(r.source).toBe('native');
    expect(r.journalPath).toBe(claudeFile);
    const byPrompt = new Map(r.turns.map((t) => [t.prompt, t]));
    // The first reply is written before its prompt in the file: only the chain finds it.
    expect(byPrompt.get('hello one')).toMatchObject({ state: 'completed', final: 'MOCK-REPLY-2: you said "hello one"' });
    expect(byPrompt.get('TWOBLOCKS please')?.final).toBe('MOCK-REPLY-4: you said "TWOBLOCKS please" MOCK-SECOND-BLOCK-4');
    expect(byPrompt.get('SLOW please')?.state).toBe('interrupted');
    expect(byPrompt.get('HANG please')?.state).toBe('dropped');
    expect(byPrompt.get('after interrupt')?.state).toBe('completed');
    expect(r.turns.map((t) => t.index)).toEqual(r.turns.map((_, i) => i));
  });

  it('Codex: turns by turn id with api errors and interrupts', async () => {
    const r = await readJournal({ executor: 'codex', nativeSessionId: CODEX_ID, offset: 0, limit: 10 }, dirs);
    if (!r.ok) throw new Error(r.error);
    expect(r.turns.map((t) => [t.prompt, t.state])).toEqual([
      ['hello one', 'completed'],
      ['FAIL400 please', 'api_error'],
      ['/slash and "quotes" $HOME `tick`\nsecond line ü', 'completed'],
      ['SLOW please', 'interrupted'],
      ['HANG please', 'interrupted'],
      ['after interrupt', 'completed'],
    ]);
    expect(r.turns[1]?.detail).toContain('mock fail400');
  });

  it('pages: the newest turns by default, then from an offset', async () => {
    const newest = await readJournal({ executor: 'codex', nativeSessionId: CODEX_ID, limit: 2 }, dirs);
    if (!newest.ok) throw new Error(newest.error);
    expect(newest).toMatchObject({ totalTurns: 6, offset: 4 });
    expect(newest.turns.map((t) => t.prompt)).toEqual(['HANG please', 'after interrupt']);
    const first = await readJournal({ executor: 'codex', nativeSessionId: CODEX_ID, offset: 1, limit: 1 }, dirs);
    expect(first.ok && first.turns.map((t) => t.prompt)).toEqual(['FAIL400 please']);
  });

  it('ignores a path hint outside the CLI folder and falls back to the archive copy', async () => {
    const outside = path.join(root, 'secret.jsonl');
    writeFileSync(outside, readFileSync(claudeFixture));
    const other = '11111111-2222-4333-8444-555555555555';
    expect(await readJournal({ executor: 'claude', nativeSessionId: other, journalPath: outside }, dirs)).toMatchObject({ ok: false, code: 'not_found' });
    const copy = archivePath(dirs.archiveDir, 'claude', other);
    mkdirSync(path.dirname(copy), { recursive: true });
    copyFileSync(claudeFixture, copy);
    const r = await readJournal({ executor: 'claude', nativeSessionId: other, journalPath: outside }, dirs);
    expect(r).toMatchObject({ ok: true, source: 'archive', journalPath: copy });
    expect(await readJournal({ executor: 'claude', nativeSessionId: '../etc' }, dirs)).toMatchObject({ ok: false, code: 'invalid' });
  });

  it('keeps one answer under the byte budget and says where to continue', async () => {
    const id = '22222222-3333-4444-8555-666666666666';
    const big = 'x'.repeat(30_000);
    const lines: string[] = [];
    let parent: string | null = null;
    for (let i = 0; i < 20; i++) {
      const u = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      lines.push(
        JSON.stringify({ parentUuid: parent, isSidechain: false, type: 'user', message: { role: 'user', content: `${i} ${big}` }, uuid: u, sessionId: id }),
      );
      parent = u;
    }
    const f = path.join(dirs.claudeHome, 'projects', '-tmp-work', `${id}.jsonl`);
    writeFileSync(f, `${lines.join('\n')}\n`);
    const r = await readJournal({ executor: 'claude', nativeSessionId: id, offset: 0, limit: 20 }, dirs);
    if (!r.ok) throw new Error(r.error);
    expect(r.turns.length).toBeLessThan(20);
    expect(r.nextOffset).toBe(r.turns.length);
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThan(READ_JOURNAL_MAX_BYTES + 10_000);
  });
});
