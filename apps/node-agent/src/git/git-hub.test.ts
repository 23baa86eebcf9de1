import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '@bria/core/db';
import { Hub } from '@bria/core/hub';
import { createLogger } from '@bria/core/log';
import { signedInCaller } from '../../../../packages/core/src/trpc/test-support.ts';
import { fileDatabase } from '../../../../packages/testkit/src/file-database.ts';
import { waitUntil } from '../../../../packages/testkit/src/wait.ts';
import { removeWorktreeAfterClose } from '../../../../packages/core/src/services/git/close-worktree.ts';
import { Agent } from '../agent.ts';

/**
 * A session in its own worktree, end to end through the dashboard's procedures: real Postgres, the
 * hub, the real agent running real git, a local bare remote. The CLI itself is not needed (its
 * binary is missing; the session's state is set where a test needs it).
 */
const root = mkdtempSync(path.join(tmpdir(), 'bria-git-hub-'));
const home = path.join(root, 'home');
const bare = path.join(root, 'remote.git');
const repo = path.join(root, 'repo');
const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1', LANG: 'C', LC_ALL: 'C' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};

const { tdb, db } = await fileDatabase();
let hub: Hub;
let agent: Agent;
let nodeId = '';
let caller: Awaited<ReturnType<typeof signedInCaller>>['caller'];
let sessionId = '';
const wt = path.join(root, 'repo.bria-worktrees', 'bria', 'fix-the-login-page');
const setState = (state: 'Ready' | 'Running' | 'Archived') => db.session.update({ where: { id: sessionId }, data: { state } });

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n');
  git(root, 'init', '--bare', '-q', bare);
  git(root, 'init', '-q', repo);
  write(path.join(repo, 'login.ts'), 'export const login = () => false;\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'start');
  git(repo, 'remote', 'add', 'origin', bare);
  git(repo, 'push', '-q', '-u', 'origin', 'main');

  hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 1000, log: createLogger({ name: 't', level: 'silent' }) });
  await hub.start();
  const n = await createNodeWithToken(db, { name: 'git' });
  nodeId = n.nodeId;
  agent = new Agent(
    {
      hubUrl: `ws://127.0.0.1:${hub.port}/agent`,
      token: n.token,
      dir: path.join(root, 'agent'),
      claudeBin: '/nonexistent',
      codexBin: '/nonexistent',
      tmuxSocket: `bria-git-${process.pid}`,
      logLevel: 'silent',
      cliEnv: { ...env, CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex') },
    },
    () => {},
  );
  await agent.start();
  await waitUntil('agent online', async () => (await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online, 15_000, 25);
  // Bria's own CLI is "installed" for the create (the agent reported /nonexistent missing).
  await db.node.update({ where: { id: nodeId }, data: { missingExecutors: [] } });
  ({ caller } = await signedInCaller(db));
}, 60_000);
afterAll(async () => {
  await agent?.stop();
  await hub?.stop();
  try {
    execFileSync('tmux', ['-L', `bria-git-${process.pid}`, 'kill-server'], { stdio: 'ignore' });
  } catch {}
  rmSync(root, { recursive: true, force: true });
});

describe('a session in its own worktree, through the dashboard', () => {
  it('creates the worktree first and runs the session there', async () => {
    const s = await caller.sessions.create({
      nodeId,
      executor: 'claude',
      folder: repo,
      title: 'Fix the login page',
      worktree: { branch: 'bria/fix-the-login-page' },
    });
    sessionId = s.id;
    expect(s).toMatchObject({
      folder: wt,
      title: 'Fix the login page',
      worktree: { path: wt, repo, branch: 'bria/fix-the-login-page', baseBranch: 'main', baseCommit: git(repo, 'rev-parse', 'main'), removedAt: null },
    });
    const start = await db.agentCommand.findFirstOrThrow({ where: { sessionId, type: 'start_session' }, select: { payload: true } });
    expect((start.payload as { folder: string }).folder).toBe(wt);
    expect(git(wt, 'symbolic-ref', '--short', 'HEAD')).toBe('bria/fix-the-login-page');
  });

  it('refuses a branch git refuses, in git’s words, and stores no session', async () => {
    const before = await db.session.count();
    const e = await caller.sessions.create({ nodeId, executor: 'claude', folder: repo, worktree: { branch: 'bria/fix-the-login-page' } }).then(
      () => null,
      (x: Error) => x,
    );
    expect(e?.message).toContain("a branch named 'bria/fix-the-login-page' already exists");
    expect(await db.session.count()).toBe(before);
  });

  it('lists the changes against the branch point', async () => {
    await setState('Ready');
    write(path.join(wt, 'login.ts'), 'export const login = (ok: boolean) => ok;\n');
    write(path.join(wt, 'login.test.ts'), 'test\n');
    const c = await caller.sessions.changes({ sessionId });
    if (!c.ok) throw new Error(c.message);
    expect(c).toMatchObject({ baseKind: 'branch_point', branch: 'bria/fix-the-login-page', dirty: true, untracked: ['login.test.ts'] });
    expect(c.files).toEqual([
      {
        path: 'login.ts',
        added: 1,
        removed: 1,
        clipped: false,
        diff: expect.stringContaining('-export const login = () => false;\n+export const login = (ok: boolean) => ok;\n'),
      },
    ]);
  });

  it('a row a dead waiter left is swept by the next git command on that node', async () => {
    const old = new Date(Date.now() - 11 * 60_000);
    const left = await db.agentCommand.create({
      data: { id: crypto.randomUUID(), nodeId, type: 'git_changes', payload: {}, status: 'done', result: { diff: 'secret' }, createdAt: old },
    });
    await caller.sessions.changes({ sessionId });
    expect(await db.agentCommand.findUnique({ where: { id: left.id } })).toBeNull();
  });

  it('refuses to commit while a turn is in flight; nothing is committed', async () => {
    await setState('Running');
    const head = git(wt, 'rev-parse', 'HEAD');
    const r = await caller.sessions.commit({ sessionId, message: 'Fix login' });
    expect(r).toMatchObject({ ok: false, code: 'turn_in_flight' });
    expect(git(wt, 'rev-parse', 'HEAD')).toBe(head);
    const p = await caller.sessions.push({ sessionId });
    expect(p).toMatchObject({ ok: false, code: 'turn_in_flight' });
    await setState('Ready');
  });

  it('commits, pushes to the bare remote', async () => {
    const r = await caller.sessions.commit({ sessionId, message: 'Fix login' });
    if (!r.ok) throw new Error(r.message);
    expect(git(wt, 'log', '-1', '--format=%an|%s')).toBe('Ada Lovelace|Fix login');
    const p = await caller.sessions.push({ sessionId });
    expect(p).toMatchObject({ ok: true, remote: 'origin', branch: 'bria/fix-the-login-page', compareUrl: null });
    expect(git(root, `--git-dir=${bare}`, 'log', '-1', '--format=%H %s', 'bria/fix-the-login-page')).toBe(`${r.commit} Fix login`);
  });

  it('a resume runs in the worktree again', async () => {
    await setState('Archived');
    await caller.sessions.resume({ sessionId });
    const resume = await db.agentCommand.findFirstOrThrow({ where: { sessionId, type: 'resume_session' }, select: { payload: true } });
    expect((resume.payload as { folder: string }).folder).toBe(wt);
    await setState('Archived');
  });

  it('finish asks a second time for uncommitted work, then merges and removes the worktree', async () => {
    write(path.join(wt, 'notes.md'), 'not committed\n');
    await setState('Ready');
    expect(await caller.sessions.finish({ sessionId, merge: 'ff', remove: true })).toMatchObject({ ok: false, code: 'session_open' });
    await setState('Archived');
    const first = await caller.sessions.finish({ sessionId, merge: 'ff', remove: true });
    expect(first).toMatchObject({ ok: false, code: 'uncommitted_work', files: ['notes.md'] });
    expect(existsSync(path.join(wt, 'notes.md'))).toBe(true);
    expect(git(repo, 'rev-parse', 'main')).not.toBe(git(wt, 'rev-parse', 'HEAD'));
    const tip = git(wt, 'rev-parse', 'HEAD');
    const done = await caller.sessions.finish({ sessionId, merge: 'ff', remove: true, force: true });
    expect(done).toMatchObject({ ok: true, merged: tip, removed: true });
    expect(readFileSync(path.join(repo, 'login.ts'), 'utf8')).toBe('export const login = (ok: boolean) => ok;\n');
    expect(existsSync(wt)).toBe(false);
    const s = await caller.sessions.get({ sessionId });
    expect(s.session.worktree?.removedAt).not.toBeNull();
    expect(await caller.sessions.finish({ sessionId, merge: 'ff', remove: true })).toMatchObject({ ok: false, code: 'worktree_removed' });
  });

  it('a session in the folder itself reads its changes against HEAD as it started', async () => {
    const startHead = git(repo, 'rev-parse', 'HEAD');
    const plain = await caller.sessions.create({ nodeId, executor: 'claude', folder: repo });
    expect(plain.worktree).toBeNull();
    expect((await db.session.findUniqueOrThrow({ where: { id: plain.id } })).gitBaseCommit).toBe(startHead);
    await db.session.update({ where: { id: plain.id }, data: { state: 'Ready' } });
    write(path.join(repo, 'later.txt'), 'one\ntwo\n');
    git(repo, 'add', 'later.txt');
    git(repo, 'commit', '-q', '-m', 'later');
    write(path.join(repo, 'login.ts'), 'export const login = () => true;\n');
    const c = await caller.sessions.changes({ sessionId: plain.id });
    if (!c.ok) throw new Error(c.message);
    expect(c).toMatchObject({ baseKind: 'session_start', base: startHead, branch: 'main', dirty: true });
    expect(c.files.map((f) => [f.path, f.added, f.removed])).toEqual([
      ['later.txt', 2, 0],
      ['login.ts', 1, 1],
    ]);
    // A folder outside any repository: no base recorded, and the changes view says why in git's words.
    const loose = path.join(root, 'loose');
    mkdirSync(loose, { recursive: true });
    const other = await caller.sessions.create({ nodeId, executor: 'claude', folder: loose });
    expect((await db.session.findUniqueOrThrow({ where: { id: other.id } })).gitBaseCommit).toBeNull();
    const none = await caller.sessions.changes({ sessionId: other.id });
    expect(none).toMatchObject({ ok: false, code: 'not_a_repository' });
    if (!none.ok) expect(none.message).toContain('not a git repository');
  });

  it('Close → Remove worktree: waits for the close, removes a clean worktree, keeps the branch', async () => {
    const s = await caller.sessions.create({
      nodeId,
      executor: 'claude',
      folder: repo,
      title: 'Close and remove',
      worktree: { branch: 'bria/close-and-remove' },
    });
    const folder = s.folder;
    await db.session.update({ where: { id: s.id }, data: { state: 'Closing' } });
    // Asked while the close is under way: nothing is removed until the session is Archived.
    const asked = caller.sessions.removeWorktree({ sessionId: s.id });
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(folder)).toBe(true);
    await db.session.update({ where: { id: s.id }, data: { state: 'Archived' } });
    expect(await asked).toMatchObject({ ok: true, merged: null, removed: true });
    expect(existsSync(folder)).toBe(false);
    expect(git(repo, 'rev-parse', '--verify', '-q', 'refs/heads/bria/close-and-remove')).toMatch(/^[0-9a-f]{40}$/);
    expect((await caller.sessions.get({ sessionId: s.id })).session.worktree?.removedAt).not.toBeNull();
  });

  it('Close → Remove worktree with uncommitted work: refused and listed; removed only with force', async () => {
    const s = await caller.sessions.create({
      nodeId,
      executor: 'claude',
      folder: repo,
      title: 'Close with work',
      worktree: { branch: 'bria/close-with-work' },
    });
    write(path.join(s.folder, 'draft.md'), 'unsaved thoughts\n');
    write(path.join(s.folder, 'login.ts'), 'export const login = () => null;\n');
    // Still open at the end of the wait: refused as open, nothing removed.
    const open = await removeWorktreeAfterClose({ db }, { sessionId: s.id, waitMs: 200, pollMs: 20 });
    expect(open).toMatchObject({ ok: false, code: 'session_open' });
    await db.session.update({ where: { id: s.id }, data: { state: 'Archived' } });
    const first = await caller.sessions.removeWorktree({ sessionId: s.id });
    expect(first).toMatchObject({ ok: false, code: 'uncommitted_work' });
    if (!first.ok) expect([...first.files].sort()).toEqual(['draft.md', 'login.ts']);
    expect(readFileSync(path.join(s.folder, 'draft.md'), 'utf8')).toBe('unsaved thoughts\n');
    expect((await db.session.findUniqueOrThrow({ where: { id: s.id } })).worktreeRemovedAt).toBeNull();
    expect(await caller.sessions.removeWorktree({ sessionId: s.id, force: true })).toMatchObject({ ok: true, removed: true });
    expect(existsSync(s.folder)).toBe(false);
    expect(git(repo, 'branch', '--list', 'bria/close-with-work')).toContain('bria/close-with-work');
  });

  it('leaves no git answer (diffs) in the database', async () => {
    expect(await db.agentCommand.count({ where: { type: { startsWith: 'git_' } } })).toBe(0);
    expect(await db.agentEvent.count({ where: { type: 'command_result', payload: { path: ['data', 'command'], string_starts_with: 'git_' } } })).toBe(0);
  });
});
