import { GIT_MAX_DIFF_TOTAL, GIT_MAX_FILE_DIFF, GIT_MAX_FILES, type GitFile, type GitPayload, type GitResult } from '@bria/core/protocol';
import { commitOf, currentBranch, git, type GitEnv, runGit, statusEntries, topLevel } from './run-git.ts';

/**
 * The folder's changes against `base` (default HEAD): the working tree, committed and uncommitted,
 * as `git diff --numstat` counts it; each file's unified diff up to GIT_MAX_FILE_DIFF and all of
 * them up to GIT_MAX_DIFF_TOTAL (later ones come without their diff, `clipped`); untracked files
 * listed from `git status`. Read only: git takes no optional locks (a CLI may be running git too).
 */
export async function readChanges(g: GitEnv, p: GitPayload<'git_changes'>): Promise<GitResult<'git_changes'>> {
  const top = await topLevel(g, p.folder);
  const head = await commitOf(g, top, 'HEAD');
  const base = p.base ? await commitOf(g, top, p.base) : head;
  const branch = await currentBranch(g, top);
  const numstat = await git(g, top, ['diff', '--numstat', '-z', '--no-renames', '--no-ext-diff', base, '--'], { what: 'diff --numstat' });
  const counted = numstat
    .split('\0')
    .filter((l) => l.length > 0)
    .map((l) => {
      const [a = '', r = '', ...rest] = l.split('\t');
      return { path: rest.join('\t'), added: a === '-' ? null : Number(a), removed: r === '-' ? null : Number(r) };
    });
  const wanted = p.paths ? new Set(p.paths) : null;
  let budget = GIT_MAX_DIFF_TOTAL;
  const files: GitFile[] = [];
  for (const f of counted.slice(0, GIT_MAX_FILES)) {
    if ((wanted && !wanted.has(f.path)) || budget <= 0) {
      files.push({ ...f, diff: null, clipped: !wanted || wanted.has(f.path) });
      continue;
    }
    const r = await runGit(g, top, ['diff', '--no-color', '--no-ext-diff', '--no-renames', base, '--', f.path], {
      maxBytes: Math.min(GIT_MAX_FILE_DIFF, budget),
    });
    const diff = r.code === 0 ? r.stdout : null;
    budget -= diff?.length ?? 0;
    files.push({ ...f, diff, clipped: r.clipped || diff === null });
  }
  const status = await statusEntries(g, top);
  const untracked = status.filter((e) => e.xy === '??').map((e) => e.path);
  return {
    ok: true,
    branch,
    head,
    base,
    files,
    untracked: untracked.slice(0, GIT_MAX_FILES),
    dirty: status.length > 0,
    truncated: counted.length > GIT_MAX_FILES || untracked.length > GIT_MAX_FILES,
  };
}
