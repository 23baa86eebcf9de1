import type { Db } from '../../db/client.ts';
import { AppError, branchNameRefusal } from '../../domain/index.ts';
import { askNodeGit } from './ask-node-git.ts';

export interface CreatedWorktree {
  path: string;
  repo: string;
  branch: string;
  base: string;
  baseCommit: string;
}

/**
 * `git worktree add` on the node, before the session exists: the session is then created with the
 * worktree as its folder, so its CLI starts (and every resume runs) there. `root` is the folder the
 * worktrees go in (default: `<repo>/../<repo name>.bria-worktrees`, docs/worktrees.md). Git's
 * refusal is the user's message.
 */
export async function createWorktreeOnNode(db: Db, input: { nodeId: string; repo: string; branch: string; root?: string | null }): Promise<CreatedWorktree> {
  const branch = input.branch.trim();
  const bad = branchNameRefusal(branch);
  if (bad) throw new AppError('INVALID_INPUT', { message: 'branch name refused', userMessage: `${bad.charAt(0).toUpperCase()}${bad.slice(1)}.` });
  const r = await askNodeGit(db, input.nodeId, 'git_worktree_add', { repo: input.repo, branch, ...(input.root ? { root: input.root } : {}) });
  if (!r.ok) {
    if (r.code === 'node_offline') throw new AppError('NODE_OFFLINE', { message: 'node offline', userMessage: 'sessions.node_offline' });
    throw new AppError('INVALID_INPUT', { message: `worktree refused: ${r.code}`, userMessage: r.error });
  }
  return { path: r.path, repo: input.repo, branch: r.branch, base: r.base, baseCommit: r.baseCommit };
}

/** How long a new session waits for its folder's HEAD; past it the session starts without a recorded base. */
export const HEAD_AT_START_WAIT_MS = 3_000;

/**
 * The commit checked out in a folder when a session starts there (its changes are read against
 * it later). Null when the folder is not in a repository, the agent cannot run git for Bria, or
 * it did not answer within HEAD_AT_START_WAIT_MS: the changes view then compares with HEAD.
 */
export async function headAtStart(db: Db, input: { nodeId: string; folder: string }): Promise<string | null> {
  const r = await askNodeGit(db, input.nodeId, 'git_changes', { folder: input.folder, paths: [] }, { timeoutMs: HEAD_AT_START_WAIT_MS });
  return r.ok ? r.head : null;
}
