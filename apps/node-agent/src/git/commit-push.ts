import { GIT_MAX_MESSAGE, type GitPayload, type GitResult } from '@bria/core/protocol';
import { commitOf, currentBranch, git, GitRefused, type GitEnv, GIT_PUSH_TIMEOUT_MS, gitFailure, runGit, topLevel } from './run-git.ts';

const clip = (s: string) => (s.length > GIT_MAX_MESSAGE ? `${s.slice(0, GIT_MAX_MESSAGE)}…` : s);

/**
 * Stages everything (`git add -A`) or only the chosen files, then `git commit` with the user's own
 * identity and hooks (git's configuration as the user has it). With chosen files only those are
 * committed, whatever else is staged.
 */
export async function commit(g: GitEnv, p: GitPayload<'git_commit'>): Promise<GitResult<'git_commit'>> {
  const top = await topLevel(g, p.folder);
  if (p.paths) {
    await git(g, top, ['add', '-A', '--', ...p.paths], { what: 'add' });
    await git(g, top, ['commit', '--quiet', '-m', p.message, '--only', '--', ...p.paths], { what: 'commit' });
  } else {
    await git(g, top, ['add', '-A'], { what: 'add' });
    await git(g, top, ['commit', '--quiet', '-m', p.message], { what: 'commit' });
  }
  const sha = await commitOf(g, top, 'HEAD');
  const summary = (await git(g, top, ['log', '-1', '--format=%h %s'])).trim();
  return { ok: true, commit: sha, summary: clip(summary) };
}

/** A remote's URL without the user name and password some people keep in it. */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1');
}

/**
 * Pushes the checked-out branch: to its upstream as the user's configuration says (`git push`), or,
 * without one, to `origin` (else the only remote) with `--set-upstream`. The user's own credentials
 * and helpers apply; nothing prompts.
 */
export async function push(g: GitEnv, p: GitPayload<'git_push'>): Promise<GitResult<'git_push'>> {
  const top = await topLevel(g, p.folder);
  const branch = await currentBranch(g, top);
  if (!branch) throw new GitRefused({ ok: false, code: 'git_failed', error: 'HEAD is detached: there is no branch to push.' });
  const upstream = await runGit(g, top, ['config', '--get', `branch.${branch}.remote`]);
  let remote = upstream.code === 0 ? upstream.stdout.trim() : '';
  let args: string[];
  if (remote) {
    args = ['push', '--porcelain'];
  } else {
    const remotes = (await git(g, top, ['remote'])).split('\n').filter(Boolean);
    remote = remotes.includes('origin') ? 'origin' : remotes.length === 1 ? (remotes[0] ?? '') : '';
    if (!remote)
      throw new GitRefused({
        ok: false,
        code: 'git_failed',
        error:
          remotes.length === 0
            ? 'The repository has no remote to push to.'
            : `The branch has no upstream and there is no origin among the remotes (${remotes.join(', ')}).`,
      });
    args = ['push', '--porcelain', '--set-upstream', remote, `refs/heads/${branch}:refs/heads/${branch}`];
  }
  const r = await runGit(g, top, args, { timeoutMs: GIT_PUSH_TIMEOUT_MS });
  if (r.code !== 0) throw new GitRefused(gitFailure(r, 'push'));
  const url = await runGit(g, top, ['remote', 'get-url', '--push', '--', remote]);
  return {
    ok: true,
    remote,
    branch,
    remoteUrl: url.code === 0 ? withoutCredentials(url.stdout.trim()) : null,
    output: clip([r.stderr.trim(), r.stdout.trim()].filter(Boolean).join('\n')),
  };
}
