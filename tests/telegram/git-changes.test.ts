import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Message } from '@grammyjs/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMIT_DRAFT_PROMPT } from '../../packages/core/src/domain/git-actions.ts';
import * as services from '../../packages/core/src/services/index.ts';
import { waitUntil } from '../../packages/testkit/src/system.ts';
import { startWorld, type World } from './world.ts';

// Git from the Telegram chat (docs/worktrees.md) over the real system: the bot process, hub and
// engine, a real node agent running real git and the real Claude Code against the mock model.
let w: World;
let repo = '';
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: w.sys.home, GIT_CONFIG_NOSYSTEM: '1' } });

beforeAll(async () => {
  w = await startWorld({ executors: ['claude', 'codex'] });
  repo = w.sys.folder('tg-git');
  git(repo, 'init', '-q', '-b', 'main');
  // The repository's own identity: the agent runs git as the user, with the user's configuration.
  git(repo, 'config', 'user.name', 'Ada Lovelace');
  git(repo, 'config', 'user.email', 'ada@example.com');
  writeFileSync(path.join(repo, 'app.ts'), 'export const answer = 41;\nexport const name = "bria";\n');
  writeFileSync(path.join(repo, 'README.md'), '# App\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'start');
}, 120_000);
afterAll(async () => {
  await w?.dispose();
});

const doc = (m: Message) => w.fake.fileBytes(m.document?.file_id ?? '') ?? Buffer.alloc(0);
let sessionId = '';
let base = '';

describe('/changes from the Telegram chat', () => {
  it('the summary lists each file with +/−, the untracked files and the base', async () => {
    sessionId = (await w.newSession('claude', repo)).sessionId;
    await w.waitCard((t) => t.includes('State: ready'), 90_000);
    base = (await w.sys.session(sessionId)).gitBaseCommit ?? '';
    expect(base).toBe(git(repo, 'rev-parse', 'HEAD').trim());
    writeFileSync(path.join(repo, 'app.ts'), 'export const answer = 42;\nexport const name = "bria";\nexport const extra = true;\n');
    writeFileSync(path.join(repo, 'README.md'), '# App\n\nNow with docs.\n');
    writeFileSync(path.join(repo, 'notes.txt'), 'untracked\n');
    const from = w.lastId();
    w.say('/changes');
    const summary = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Changes of') ?? false));
    expect(summary.text).toContain(`Since the session started (${base.slice(0, 7)})`);
    expect(summary.text).toContain('+2 −1 app.ts');
    expect(summary.text).toContain('+2 −0 README.md');
    expect(summary.text).toContain('Untracked: notes.txt');
    expect(w.buttons(summary).map((b) => b.text)).toEqual(['Whole diff', '📄 README.md', '📄 app.ts', 'Draft message', 'Commit all', 'Push']);
  });

  it('the whole diff and one file’s diff arrive as documents whose bytes are git’s diff', async () => {
    const summary = await w.waitFor((m) => m.text?.startsWith('Changes of') ?? false);
    let from = w.lastId();
    w.press(summary, 'Whole diff');
    const all = await w.waitFor((m) => m.message_id > from && m.document !== undefined);
    expect(all.document?.file_name).toBe('main.diff');
    expect(all.caption).toBe('Diff of all changes');
    expect(doc(all).toString('utf8')).toBe(git(repo, 'diff', '--no-color', '--no-renames', base));
    from = w.lastId();
    w.press(summary, '📄 app.ts');
    const one = await w.waitFor((m) => m.message_id > from && m.document !== undefined);
    expect(one.document?.file_name).toBe('app.ts.diff');
    expect(doc(one).toString('utf8')).toBe(git(repo, 'diff', '--no-color', base, '--', 'app.ts'));
    // Sent to Telegram, never stored: no outbox row holds the diff.
    const rows = await w.sys.db.outbox.findMany({ select: { payload: true } });
    expect(rows.filter((r) => JSON.stringify(r.payload).includes('export const extra'))).toEqual([]);
  });

  it('Draft message: the session’s CLI writes it in a turn of its own; committing with it commits everything', async () => {
    const summary = await w.waitFor((m) => m.text?.startsWith('Changes of') ?? false);
    const from = w.lastId();
    w.press(summary, 'Draft message');
    const drafted = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('Drafted by the session’s CLI') ?? false), 90_000);
    // The drafting turn is a real one: a Message row with the prompt, answered by the model.
    const row = (await w.sys.messages(sessionId)).find((m) => m.text === COMMIT_DRAFT_PROMPT);
    expect(row?.status).toBe('completed');
    const native = (await w.sys.session(sessionId)).nativeSessionId as string;
    expect(w.sys.turns('claude', native).some((r) => (r.userText ?? '').includes('Write a git commit message'))).toBe(true);
    const draft = (row?.finalText ?? '').trim();
    expect(draft).toMatch(/^MOCK-REPLY-\d+: you said "Write a git commit message/);
    expect(drafted.text).toContain(draft);
    w.press(drafted, 'Commit with this message');
    await w.waitFor((m) => m.message_id > drafted.message_id && (m.text?.startsWith('Committed:') ?? false), 60_000);
    expect(git(repo, 'log', '-1', '--format=%B').trim()).toBe(draft);
    expect(git(repo, 'log', '-1', '--format=%an').trim()).toBe('Ada Lovelace');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});

describe('Close with Keep / Remove worktree from the card', () => {
  const worktreeSession = async (branch: string) => {
    const folder = path.join(path.dirname(repo), 'tg-git.bria-worktrees', ...branch.split('/'));
    await w.sys.trust(folder);
    const s = await services.createSession(w.sys.deps, { nodeId: w.sys.nodeId, executor: 'claude', folder: repo, chatId: w.sys.chatId, worktree: { branch } });
    expect(s.folder).toBe(folder);
    await w.sys.waitState(s.id, 'Ready', 90_000);
    const from = w.lastId();
    w.say('/sessions');
    const list = await w.waitFor((m) => m.message_id > from && w.buttons(m).some((b) => b.text.includes(branch.split('/')[1] as string)));
    w.press(list, new RegExp(branch.split('/')[1] as string));
    const card = await w.waitFor((m) => m.message_id > list.message_id && (m.text?.includes(`Folder: ${folder}`) ?? false));
    return { id: s.id, folder, card };
  };

  it('Remove on a clean worktree: the session closes, then the worktree goes; the branch stays', async () => {
    const s = await worktreeSession('bria/tg-clean');
    w.press(s.card, 'Close');
    const ask = await w.waitCard((t) => t.includes('Its worktree (branch bria/tg-clean)'));
    expect(
      w
        .buttons(ask)
        .map((b) => b.text)
        .slice(0, 3),
    ).toEqual(['Close, keep worktree', 'Close, remove worktree', 'Cancel']);
    const from = w.lastId();
    w.press(ask, 'Close, remove worktree');
    await w.waitFor((m) => m.message_id > from && m.text === 'The worktree was removed; the branch bria/tg-clean stays.', 90_000);
    expect((await w.sys.session(s.id)).state).toBe('Archived');
    expect(existsSync(s.folder)).toBe(false);
    expect(git(repo, 'branch', '--list', 'bria/tg-clean')).toContain('bria/tg-clean');
  });

  it('Remove with uncommitted work: the files are listed, removed only after “Remove anyway”', async () => {
    const s = await worktreeSession('bria/tg-dirty');
    writeFileSync(path.join(s.folder, 'wip.md'), 'work in progress\n');
    w.press(s.card, 'Close');
    const ask = await w.waitCard((t) => t.includes('Its worktree (branch bria/tg-dirty)'));
    const from = w.lastId();
    w.press(ask, 'Close, remove worktree');
    const listed = await w.waitFor((m) => m.message_id > from && (m.text?.startsWith('The worktree has uncommitted work') ?? false), 90_000);
    expect(listed.text).toContain('wip.md');
    expect(existsSync(path.join(s.folder, 'wip.md'))).toBe(true);
    w.press(listed, 'Remove anyway, lose this work');
    await w.waitFor((m) => m.message_id > listed.message_id && m.text === 'The worktree was removed; the branch bria/tg-dirty stays.', 60_000);
    await waitUntil('the worktree gone', async () => !existsSync(s.folder), 10_000);
    expect((await w.sys.session(s.id)).worktreeRemovedAt).not.toBeNull();
  });
});
