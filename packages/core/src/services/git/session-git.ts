import type { Db } from '../../db/client.ts';
import { getSessionRow, patchSession, type SessionRow } from '../../db/repos/sessions.ts';
import { AppError, compareUrl, type GitAction, type GitRefusal, gitActionRefusal } from '../../domain/index.ts';
import type { GitFailureCode, GitFile, GitResult } from '../../protocol/index.ts';
import { askNodeGit, type NodeGitUnavailable } from './ask-node-git.ts';

/**
 * A git action that did not run: the hub's rule (`GitRefusal`: a turn in flight, no worktree,
 * uncommitted work…), the node's answer (`GitFailureCode`: git refused, in its own words), or no
 * answer (`NodeGitUnavailable`). `message` is shown as it is; `files` lists uncommitted work.
 */
export type GitRefusalDto = { ok: false; code: GitRefusal | GitFailureCode | NodeGitUnavailable['code'] | 'no_draft'; message: string; files: string[] };

export type ChangesDto =
  | {
      ok: true;
      branch: string | null;
      head: string;
      base: string;
      /** What `base` is: the worktree's branch point, HEAD when the session started in its folder, or HEAD now (none recorded). */
      baseKind: 'branch_point' | 'session_start' | 'head';
      files: GitFile[];
      untracked: string[];
      dirty: boolean;
      truncated: boolean;
    }
  | GitRefusalDto;

const REFUSAL_TEXT: Record<GitRefusal, string> = {
  turn_in_flight: 'The session’s CLI is working on a turn; try again when it is Ready.',
  session_busy: 'The session’s CLI is starting, resuming, recovering or closing; try again when it is Ready.',
  no_worktree: 'This session has no worktree of its own to finish.',
  worktree_removed: 'This session’s worktree was already removed.',
  session_open: 'The session’s CLI still runs in the worktree: close the session before removing it.',
  uncommitted_work: 'The worktree has uncommitted work; removing it would lose it.',
};

async function loadSession(db: Db, sessionId: string): Promise<SessionRow> {
  const row = await getSessionRow(db, sessionId);
  if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
  return row;
}

/** The hub's side of the rule: what the session's state and queue say (the node checks the files). */
export async function refusalNow(
  db: Db,
  row: SessionRow,
  action: GitAction,
  finish?: { dirty?: boolean; remove?: boolean; force?: boolean },
): Promise<GitRefusalDto | null> {
  const inFlight = await db.message.count({ where: { sessionId: row.id, status: { in: ['leased', 'accepted'] } } });
  const refusal = gitActionRefusal({
    action,
    state: row.state,
    turnInFlight: inFlight > 0,
    openPrompts: row.openPrompts,
    worktree: !row.worktreePath ? 'none' : row.worktreeRemovedAt ? 'removed' : 'present',
    ...finish,
  });
  return refusal ? { ok: false, code: refusal, message: REFUSAL_TEXT[refusal], files: [] } : null;
}

function failed(r: { ok: false; code: GitRefusalDto['code']; error: string; files?: string[] }): GitRefusalDto {
  return { ok: false, code: r.code, message: r.error, files: r.files ?? [] };
}

/** The session's changes: against the worktree's branch point, or (no worktree) against HEAD. */
export async function readSessionChanges(deps: { db: Db }, input: { sessionId: string; paths?: string[] }): Promise<ChangesDto> {
  const row = await loadSession(deps.db, input.sessionId);
  if (row.worktreeRemovedAt) return { ok: false, code: 'worktree_removed', message: REFUSAL_TEXT.worktree_removed, files: [] };
  const base = row.gitBaseCommit;
  const r = await askNodeGit(deps.db, row.nodeId, 'git_changes', {
    folder: row.folder,
    ...(base ? { base } : {}),
    ...(input.paths ? { paths: input.paths } : {}),
  });
  if (!r.ok) return failed(r);
  return { ...r, baseKind: !base ? 'head' : row.worktreePath ? 'branch_point' : 'session_start' };
}

export async function commitSessionChanges(
  deps: { db: Db },
  input: { sessionId: string; message: string; paths?: string[] },
): Promise<{ ok: true; commit: string; summary: string } | GitRefusalDto> {
  const row = await loadSession(deps.db, input.sessionId);
  const refused = await refusalNow(deps.db, row, 'commit');
  if (refused) return refused;
  const r = await askNodeGit(deps.db, row.nodeId, 'git_commit', { folder: row.folder, message: input.message, ...(input.paths ? { paths: input.paths } : {}) });
  return r.ok ? { ok: true, commit: r.commit, summary: r.summary } : failed(r);
}

export async function pushSessionBranch(
  deps: { db: Db },
  input: { sessionId: string },
): Promise<{ ok: true; remote: string; branch: string; output: string; compareUrl: string | null } | GitRefusalDto> {
  const row = await loadSession(deps.db, input.sessionId);
  const refused = await refusalNow(deps.db, row, 'push');
  if (refused) return refused;
  const r: GitResult<'git_push'> | NodeGitUnavailable = await askNodeGit(deps.db, row.nodeId, 'git_push', { folder: row.folder });
  if (!r.ok) return failed(r);
  const compare = r.remoteUrl && row.gitBaseBranch ? compareUrl(r.remoteUrl, row.gitBaseBranch, r.branch) : null;
  return { ok: true, remote: r.remote, branch: r.branch, output: r.output, compareUrl: compare };
}

/**
 * Finish: merge the worktree's branch into its base (`ff` or `merge`, or `none`) and remove the
 * worktree (`remove`). Uncommitted work is looked at first, so the user is asked the second time
 * before anything is merged; the node checks again itself (it may have changed since).
 */
export async function finishSessionWorktree(
  deps: { db: Db; now?: () => Date },
  input: { sessionId: string; merge: 'ff' | 'merge' | 'none'; remove: boolean; force?: boolean },
): Promise<{ ok: true; merged: string | null; removed: boolean; output: string } | GitRefusalDto> {
  const row = await loadSession(deps.db, input.sessionId);
  const early = await refusalNow(deps.db, row, 'finish', { remove: input.remove });
  if (early) return early;
  let files: string[] = [];
  if (input.remove && !input.force) {
    const look = await askNodeGit(deps.db, row.nodeId, 'git_changes', { folder: row.folder, paths: [] });
    if (!look.ok) return failed(look);
    files = [...look.files.map((f) => f.path), ...look.untracked];
    const refused = await refusalNow(deps.db, row, 'finish', { dirty: look.dirty, remove: true });
    if (refused) return { ...refused, files: look.dirty ? files : [] };
  }
  const r = await askNodeGit(deps.db, row.nodeId, 'git_finish', {
    folder: row.folder,
    repo: row.worktreeRepo ?? row.folder,
    branch: row.worktreeBranch ?? '',
    base: row.gitBaseBranch ?? '',
    merge: input.merge,
    remove: input.remove,
    ...(input.force ? { force: true } : {}),
  });
  if (!r.ok) return failed(r);
  if (r.removed) await patchSession(deps.db, row.id, { worktreeRemovedAt: (deps.now ?? (() => new Date()))() });
  return { ok: true, merged: r.merged, removed: r.removed, output: r.output };
}
