import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanSessions } from './scan-sessions.ts';
import { claudeLines, claudeProjectDir, type Turn, writeClaudeSession } from './synthetic-store.ts';

let root: string;
let claudeHome: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bria-disc-claude-'));
  claudeHome = join(root, '.claude');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const SID = '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const turns = (n: number, from = '2026-12-01T10:00:00.000Z'): Turn[] =>
  Array.from({ length: n }, (_, i) => ({ prompt: `prompt ${i}`, reply: `reply ${i}`, at: new Date(Date.parse(from) + i * 60_000).toISOString() }));

describe('Claude discovery', () => {
  it('takes cwd from records, and first prompt by timestamp when records are out of order', async () => {
    // A cwd whose encoded directory name cannot be decoded back (dots and underscores become dashes).
    const cwd = '/srv/My.Proj_dir with space';
    const file = writeClaudeSession(claudeHome, { sessionId: SID, cwd, turns: turns(3), aiTitle: 'Fix the build', firstTurnOutOfOrder: true });
    const { sessions, problems } = await scanSessions({ claudeHome, codexHome: null });
    expect(problems).toEqual([]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      executor: 'claude',
      nativeId: SID,
      cwd,
      file,
      title: 'Fix the build',
      firstPrompt: 'prompt 0',
      lastPrompt: 'prompt 2',
      userTurns: 3,
      startedAt: '2026-12-01T10:00:00.000Z',
      lastActivityAt: '2026-12-01T10:02:01.001Z',
      cliVersion: '2.1.197',
      originator: 'cli',
      live: false,
    });
  });

  it('reads long pasted prompts, clipped, and does not count long tool results as prompts', async () => {
    const long = `${'fix this stack trace\n'.repeat(1500)}end`;
    const t = turns(2).map((x, i) => ({ ...x, prompt: i === 0 ? long : x.prompt, toolBytes: 50_000 }));
    writeClaudeSession(claudeHome, { sessionId: SID, cwd: '/w', turns: t });
    const { sessions } = await scanSessions({ claudeHome, codexHome: null });
    expect(sessions[0]?.userTurns).toBe(2);
    expect(sessions[0]?.firstPrompt).toHaveLength(240);
    expect(sessions[0]?.firstPrompt?.startsWith('fix this stack trace\nfix this')).toBe(true);
    expect(sessions[0]?.firstPrompt?.endsWith('…')).toBe(true);
    expect(sessions[0]?.lastPrompt).toBe('prompt 1');
  });

  it('prefers the last custom title, then the last ai title', async () => {
    const dir = claudeProjectDir(claudeHome, '/w');
    mkdirSync(dir, { recursive: true });
    const base = claudeLines({ sessionId: SID, cwd: '/w', turns: turns(1) });
    const t = (type: string, key: string, v: string) => JSON.stringify({ type, [key]: v, sessionId: SID });
    const file = join(dir, `${SID}.jsonl`);
    writeFileSync(file, `${[...base, t('ai-title', 'aiTitle', 'ai one'), t('ai-title', 'aiTitle', 'ai two')].join('\n')}\n`);
    expect((await scanSessions({ claudeHome, codexHome: null })).sessions[0]?.title).toBe('ai two');
    appendFileSync(
      file,
      `${t('custom-title', 'customTitle', 'mine')}\n${t('custom-title', 'customTitle', 'mine again')}\n${t('ai-title', 'aiTitle', 'ai three')}\n`,
    );
    expect((await scanSessions({ claudeHome, codexHome: null })).sessions[0]?.title).toBe('mine again');
  });

  it('counts print-mode prompts and skips memory dirs, subagent folders and sidechain files', async () => {
    writeClaudeSession(claudeHome, { sessionId: SID, cwd: '/p', turns: turns(2), sdk: true });
    const dir = claudeProjectDir(claudeHome, '/p');
    mkdirSync(join(dir, 'memory'), { recursive: true });
    writeFileSync(join(dir, 'memory', `${'0'.repeat(8)}-0000-4000-8000-000000000000.jsonl`), '{}\n');
    mkdirSync(join(dir, SID, 'subagents'), { recursive: true });
    writeFileSync(join(dir, SID, 'subagents', 'agent-a1.jsonl'), `${claudeLines({ sessionId: SID, cwd: '/p', turns: turns(1) }).join('\n')}\n`);
    writeFileSync(join(dir, 'agent-0123abcd.jsonl'), '{}\n');
    const side = '11111111-2222-4333-8444-555555555555';
    const sideLines = claudeLines({ sessionId: side, cwd: '/p', turns: turns(1) }).map((l) => l.replace('"isSidechain":false', '"isSidechain":true'));
    writeFileSync(join(dir, `${side}.jsonl`), `${sideLines.join('\n')}\n`);

    const { sessions } = await scanSessions({ claudeHome, codexHome: null });
    expect(sessions.map((s) => s.nativeId)).toEqual([SID]);
    expect(sessions[0]).toMatchObject({ userTurns: 2, firstPrompt: 'prompt 0', originator: 'sdk-cli' });
  });

  it('marks a session live only while a live-registry pid is alive and is the same process', async () => {
    writeClaudeSession(claudeHome, { sessionId: SID, cwd: '/w', turns: turns(1) });
    const registry = join(claudeHome, 'sessions');
    mkdirSync(registry, { recursive: true });
    const entry = (pid: number) => JSON.stringify({ pid, sessionId: SID, cwd: '/w', startedAt: Date.now(), version: '2.1.197', kind: 'interactive' });
    writeFileSync(join(registry, `${process.pid}.json`), entry(process.pid));
    expect((await scanSessions({ claudeHome, codexHome: null })).sessions[0]?.live).toBe(true);

    // Same pid, but a start time that is not this process's: a recycled pid.
    writeFileSync(join(registry, `${process.pid}.json`), JSON.stringify({ ...JSON.parse(entry(process.pid)), procStart: '1' }));
    expect((await scanSessions({ claudeHome, codexHome: null })).sessions[0]?.live).toBe(false);

    rmSync(join(registry, `${process.pid}.json`));
    writeFileSync(join(registry, '4194000.json'), entry(4_194_000));
    expect((await scanSessions({ claudeHome, codexHome: null })).sessions[0]?.live).toBe(false);
  });
});
