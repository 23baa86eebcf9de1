import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { GitPayload, GitResult } from '@bria/core/protocol';
import { commitOf, currentBranch, git, GitRefused, type GitEnv, topLevel } from './run-git.ts';

/** Where Bria puts a repository's worktrees: a folder beside it, or by its name in the configured folder. */
export function worktreeRoot(repoTop: string, worktreesDir?: string): string {
  if (worktreesDir) return path.join(worktreesDir, path.basename(repoTop));
  return path.join(path.dirname(repoTop), `${path.basename(repoTop)}.bria-worktrees`);
}

/**
 * `git worktree add -b <branch> <root>/<branch> <base>`: a new branch from `base` (default: the
 * branch checked out in the repository) in its own folder. Git checks the name and refuses an
 * existing branch or folder in its own words.
 */
export async function worktreeAdd(g: GitEnv, p: GitPayload<'git_worktree_add'>): Promise<GitResult<'git_worktree_add'>> {
  const top = await topLevel(g, p.repo);
  await git(g, top, ['check-ref-format', '--branch', p.branch], { what: 'check-ref-format' });
  const base = p.base ?? (await currentBranch(g, top));
  if (!base) throw new GitRefused({ ok: false, code: 'git_failed', error: `${top} is on a detached HEAD: name the branch to start from.` });
  const baseCommit = await commitOf(g, top, base);
  const root = p.root ?? worktreeRoot(top, g.worktreesDir);
  mkdirSync(root, { recursive: true });
  const target = path.join(root, p.branch);
  await git(g, top, ['worktree', 'add', '-b', p.branch, '--', target, baseCommit], { what: 'worktree add' });
  return { ok: true, path: realpathSync(target), branch: p.branch, base, baseCommit };
}
