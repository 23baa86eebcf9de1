import { existsSync } from 'node:fs';
import { GIT_MAX_MESSAGE, type GitPayload, type GitResult } from '@bria/core/protocol';
import { commitOf, currentBranch, git, GitRefused, type GitEnv, gitFailure, runGit, statusEntries, topLevel } from './run-git.ts';

/**
 * Lands a worktree's branch: merges it into `base` in the main checkout (fast-forward only, or a
 * merge commit) and removes the worktree. Order: nothing happens while the worktree holds
 * uncommitted work that removing it would lose, unless `force` (the user's second confirmation);
 * a merge git refuses (local changes in the way, not a fast-forward, conflicts) is aborted and
 * answered with git's words, and then nothing is removed.
 */
export async function finish(g: GitEnv, p: GitPayload<'git_finish'>): Promise<GitResult<'git_finish'>> {
  const repo = await topLevel(g, p.repo);
  const worktreeThere = existsSync(p.folder);
  if (p.remove && worktreeThere && !p.force) {
    const dirty = await statusEntries(g, p.folder);
    if (dirty.length > 0)
      throw new GitRefused({
        ok: false,
        code: 'uncommitted_work',
        error: `The worktree has ${dirty.length} uncommitted change(s); removing it would lose them.`,
        files: dirty.map((e) => `${e.xy} ${e.path}`).slice(0, 500),
      });
  }
  let merged: string | null = null;
  const out: string[] = [];
  if (p.merge !== 'none') {
    const checkedOut = await currentBranch(g, repo);
    if (checkedOut !== p.base)
      throw new GitRefused({
        ok: false,
        code: 'base_not_checked_out',
        error: `${repo} has ${checkedOut ?? 'a detached HEAD'} checked out, not ${p.base}: check out ${p.base} there to merge. Nothing was merged.`,
      });
    const args =
      p.merge === 'ff' ? ['merge', '--ff-only', '--no-edit', p.branch] : ['merge', '--no-ff', '--no-edit', '-m', `Merge branch '${p.branch}'`, p.branch];
    const r = await runGit(g, repo, args);
    if (r.code !== 0) {
      // A merge stopped on conflicts leaves the base half merged: put it back as it was.
      const inMerge = await runGit(g, repo, ['rev-parse', '-q', '--verify', 'MERGE_HEAD']);
      if (inMerge.code === 0) await runGit(g, repo, ['merge', '--abort']);
      throw new GitRefused(gitFailure(r, 'merge'));
    }
    out.push(r.stdout.trim());
    merged = await commitOf(g, repo, 'HEAD');
  }
  let removed = false;
  if (p.remove && worktreeThere) {
    await git(g, repo, ['worktree', 'remove', ...(p.force ? ['--force'] : []), '--', p.folder], { what: 'worktree remove' });
    removed = true;
  }
  const output = out.filter(Boolean).join('\n');
  return { ok: true, merged, removed, output: output.length > GIT_MAX_MESSAGE ? `${output.slice(0, GIT_MAX_MESSAGE)}…` : output };
}
