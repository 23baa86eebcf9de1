import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitCommands } from './git-command.ts';

/**
 * The agent's git commands against real git: a repository with a local bare remote, worktrees made
 * beside it, files changed on disk the way a CLI's edit tool writes them.
 */
const root = mkdtempSync(path.join(tmpdir(), 'bria-git-'));
const home = path.join(root, 'home');
const bare = path.join(root, 'remote.git');
const repo = path.join(root, 'repo');
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  LANG: 'C',
  LC_ALL: 'C',
};
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};
const cmds = new GitCommands({ env });
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field in the assertions
const run = (type: Parameters<GitCommands['run']>[0], payload: Record<string, unknown>) => cmds.run(type, payload) as Promise<any>;

beforeAll(() => {
  mkdirSync(home, { recursive: true });
  // The user's own identity, as the agent finds it in the user's git configuration.
  writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n');
  git(root, 'init', '--bare', '-q', bare);
  git(root, 'init', '-q', repo);
  write(path.join(repo, 'a.txt'), 'one\ntwo\nthree\n');
  write(path.join(repo, 'b.txt'), 'bee\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'start');
  git(repo, 'remote', 'add', 'origin', bare);
  git(repo, 'push', '-q', '-u', 'origin', 'main');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a worktree from creation to finish', () => {
  const wt = path.join(root, 'repo.bria-worktrees', 'bria', 'fix-a');
  let baseCommit = '';
  let committed = '';

  it('creates the worktree beside the repository on a new branch from the checked-out one', async () => {
    const r = await run('git_worktree_add', { repo, branch: 'bria/fix-a' });
    expect(r).toMatchObject({ ok: true, path: wt, branch: 'bria/fix-a', base: 'main' });
    baseCommit = r.baseCommit;
    expect(baseCommit).toBe(git(repo, 'rev-parse', 'main'));
    expect(git(wt, 'symbolic-ref', '--short', 'HEAD')).toBe('bria/fix-a');
    expect(git(repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${wt}`);
  });

  it('lists the changes against the branch point with exact counts and diffs, untracked files apart', async () => {
    write(path.join(wt, 'a.txt'), 'one\nTWO\nthree\nfour\n');
    unlinkSync(path.join(wt, 'b.txt'));
    write(path.join(wt, 'docs', 'new file.md'), '# new\n');
    const r = await run('git_changes', { folder: wt, base: baseCommit });
    expect(r).toMatchObject({ ok: true, branch: 'bria/fix-a', head: baseCommit, base: baseCommit, dirty: true, truncated: false });
    expect(r.untracked).toEqual(['docs/new file.md']);
    expect(r.files.map((f: { path: string; added: number; removed: number }) => [f.path, f.added, f.removed])).toEqual([
      ['a.txt', 2, 1],
      ['b.txt', 0, 1],
    ]);
    expect(r.files[0].diff).toBe(
      [
        'diff --git a/a.txt b/a.txt',
        `index ${git(repo, 'rev-parse', '--short=7', `${baseCommit}:a.txt`)}..${git(wt, 'hash-object', 'a.txt').slice(0, 7)} 100644`,
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,3 +1,4 @@',
        ' one',
        '-two',
        '+TWO',
        ' three',
        '+four',
        '',
      ].join('\n'),
    );
    expect(r.files[1].diff).toContain('deleted file mode 100644');
    expect(r.files.every((f: { clipped: boolean }) => !f.clipped)).toBe(true);
  });

  it('commits everything (untracked too) with the user’s identity', async () => {
    const r = await run('git_commit', { folder: wt, message: 'Fix a, drop b, add docs' });
    expect(r.ok).toBe(true);
    committed = r.commit;
    expect(r.summary).toBe(`${committed.slice(0, 7)} Fix a, drop b, add docs`);
    expect(git(wt, 'log', '-1', '--format=%an <%ae>|%s')).toBe('Ada Lovelace <ada@example.com>|Fix a, drop b, add docs');
    const after = await run('git_changes', { folder: wt, base: baseCommit });
    expect(after).toMatchObject({ ok: true, dirty: false, untracked: [], head: committed });
    expect(after.files.map((f: { path: string }) => f.path)).toEqual(['a.txt', 'b.txt', 'docs/new file.md']);
  });

  it('refuses an empty commit in git’s words', async () => {
    const r = await run('git_commit', { folder: wt, message: 'nothing' });
    expect(r).toMatchObject({ ok: false, code: 'git_failed' });
    expect(r.error).toContain('nothing to commit');
  });

  it('pushes the new branch to origin, setting its upstream; the bare remote has the commit', async () => {
    const r = await run('git_push', { folder: wt });
    expect(r).toMatchObject({ ok: true, remote: 'origin', branch: 'bria/fix-a', remoteUrl: bare });
    expect(git(root, `--git-dir=${bare}`, 'log', '-1', '--format=%H %s', 'bria/fix-a')).toBe(`${committed} Fix a, drop b, add docs`);
    expect(git(wt, 'rev-parse', '--abbrev-ref', '@{u}')).toBe('origin/bria/fix-a');
  });

  it('finishes: fast-forwards main and removes the worktree', async () => {
    const r = await run('git_finish', { folder: wt, repo, branch: 'bria/fix-a', base: 'main', merge: 'ff', remove: true });
    expect(r).toMatchObject({ ok: true, merged: committed, removed: true });
    expect(git(repo, 'rev-parse', 'main')).toBe(committed);
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\nfour\n');
    expect(existsSync(wt)).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain(wt);
  });
});

describe('refusals carry git’s reason, and nothing is lost', () => {
  const add = async (branch: string) => {
    const r = await run('git_worktree_add', { repo, branch });
    expect(r.ok).toBe(true);
    return r.path as string;
  };

  it('a branch name git refuses, an existing branch, a folder outside any repository', async () => {
    const bad = await run('git_worktree_add', { repo, branch: 'bad..name' });
    expect(bad).toMatchObject({ ok: false, code: 'git_failed' });
    expect(bad.error).toContain('bad..name');
    const again = await run('git_worktree_add', { repo, branch: 'main' });
    expect(again).toMatchObject({ ok: false, code: 'git_failed' });
    expect(again.error).toContain("a branch named 'main' already exists");
    const none = await run('git_changes', { folder: root });
    expect(none).toMatchObject({ ok: false, code: 'not_a_repository' });
    expect(none.error).toContain('not a git repository');
  });

  it('a dirty base: git refuses the merge, the worktree and the local changes stay', async () => {
    const wt = await add('bria/dirty-base');
    write(path.join(wt, 'a.txt'), 'changed in the worktree\n');
    expect((await run('git_commit', { folder: wt, message: 'change a' })).ok).toBe(true);
    write(path.join(repo, 'a.txt'), 'local edit at the desk\n');
    const r = await run('git_finish', { folder: wt, repo, branch: 'bria/dirty-base', base: 'main', merge: 'ff', remove: true });
    expect(r).toMatchObject({ ok: false, code: 'git_failed' });
    expect(r.error).toContain('Your local changes to the following files would be overwritten by merge');
    expect(r.error).toContain('a.txt');
    expect(existsSync(wt)).toBe(true);
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('local edit at the desk\n');
    git(repo, 'checkout', '--', 'a.txt');
  });

  it('a merge commit on conflicts is aborted: the base is as it was', async () => {
    const wt = path.join(root, 'repo.bria-worktrees', 'bria', 'dirty-base');
    write(path.join(repo, 'a.txt'), 'main moved on\n');
    git(repo, 'commit', '-q', '-am', 'main moves');
    const head = git(repo, 'rev-parse', 'HEAD');
    const r = await run('git_finish', { folder: wt, repo, branch: 'bria/dirty-base', base: 'main', merge: 'merge', remove: false });
    expect(r).toMatchObject({ ok: false, code: 'git_failed' });
    expect(r.error).toContain('CONFLICT (content): Merge conflict in a.txt');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('a push the remote rejects (not a fast-forward) in git’s words', async () => {
    const wt = await add('bria/race');
    write(path.join(wt, 'r.txt'), 'mine\n');
    await run('git_commit', { folder: wt, message: 'mine' });
    // Someone else pushed to the same branch first.
    const other = path.join(root, 'other');
    git(root, 'clone', '-q', bare, other);
    git(other, 'checkout', '-q', '-b', 'bria/race');
    write(path.join(other, 'r.txt'), 'theirs\n');
    git(other, 'add', '-A');
    git(other, 'commit', '-q', '-m', 'theirs');
    git(other, 'push', '-q', 'origin', 'bria/race');
    const r = await run('git_push', { folder: wt });
    expect(r).toMatchObject({ ok: false, code: 'git_failed' });
    expect(r.error).toMatch(/rejected/);
    expect(r.error).toMatch(/fetch first|non-fast-forward/);
    expect(git(root, `--git-dir=${bare}`, 'log', '-1', '--format=%s', 'bria/race')).toBe('theirs');
  });

  it('uncommitted work is never removed without force; with force it is', async () => {
    const wt = await add('bria/unsaved');
    write(path.join(wt, 'draft.txt'), 'unsaved\n');
    write(path.join(wt, 'a.txt'), 'edited, not committed\n');
    const r = await run('git_finish', { folder: wt, repo, branch: 'bria/unsaved', base: 'main', merge: 'none', remove: true });
    expect(r).toMatchObject({ ok: false, code: 'uncommitted_work' });
    expect(r.files).toEqual([' M a.txt', '?? draft.txt']);
    expect(readFileSync(path.join(wt, 'draft.txt'), 'utf8')).toBe('unsaved\n');
    const forced = await run('git_finish', { folder: wt, repo, branch: 'bria/unsaved', base: 'main', merge: 'none', remove: true, force: true });
    expect(forced).toMatchObject({ ok: true, merged: null, removed: true });
    expect(existsSync(wt)).toBe(false);
    // The branch stays: only the folder went.
    expect(git(repo, 'branch', '--list', 'bria/unsaved')).toContain('bria/unsaved');
  });

  it('merging needs the base checked out in the repository', async () => {
    const wt = await add('bria/elsewhere');
    git(repo, 'checkout', '-q', '-b', 'side');
    const r = await run('git_finish', { folder: wt, repo, branch: 'bria/elsewhere', base: 'main', merge: 'ff', remove: true });
    expect(r).toMatchObject({ ok: false, code: 'base_not_checked_out' });
    expect(existsSync(wt)).toBe(true);
    git(repo, 'checkout', '-q', 'main');
  });

  it('puts worktrees in the configured folder by repository name', async () => {
    const elsewhere = path.join(root, 'worktrees');
    const r = await new GitCommands({ env, worktreesDir: elsewhere }).run('git_worktree_add', { repo, branch: 'bria/configured' });
    expect(r).toMatchObject({ ok: true, path: path.join(elsewhere, 'repo', 'bria', 'configured') });
  });

  it('commits only the chosen files', async () => {
    const wt = await add('bria/chosen');
    write(path.join(wt, 'x.txt'), 'x\n');
    write(path.join(wt, 'y.txt'), 'y\n');
    unlinkSync(path.join(wt, 'docs', 'new file.md'));
    const r = await run('git_commit', { folder: wt, message: 'x and the deletion', paths: ['x.txt', 'docs/new file.md'] });
    expect(r.ok).toBe(true);
    expect(git(wt, 'show', '--name-status', '--format=', 'HEAD').split('\n').sort()).toEqual(['A\tx.txt', 'D\tdocs/new file.md']);
    expect(git(wt, 'status', '--porcelain')).toBe('?? y.txt');
  });

  it('refuses a branch or base that git would read as an option', async () => {
    for (const payload of [
      { repo, branch: '--orphan' },
      { repo, branch: 'x', base: '--help' },
    ]) {
      expect(await run('git_worktree_add', payload)).toMatchObject({ ok: false, code: 'invalid_payload' });
    }
  });

  it('refuses paths outside the repository and options before running git', async () => {
    for (const p of ['../x', '/etc/passwd', '--all']) {
      const r = await run('git_commit', { folder: repo, message: 'm', paths: [p] });
      expect(r).toMatchObject({ ok: false, code: 'invalid_payload' });
    }
  });
});
