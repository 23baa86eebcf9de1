import { z } from 'zod';
import { GIT_FAILURE_CODES, GIT_MAX_COMMIT_MESSAGE, GIT_MAX_FILES, zGitFile, zRepoPath } from '../../../protocol/index.ts';
import { GIT_REFUSALS } from '../../../domain/index.ts';
import { zId } from '../zod-shared.ts';

/** A git action that did not run, with the words to show (git's own when git refused). */
export const ZGitRefusal = z.object({
  ok: z.literal(false),
  code: z.enum([...GIT_REFUSALS, ...GIT_FAILURE_CODES, 'node_offline', 'agent_too_old', 'no_answer', 'no_draft']),
  message: z.string(),
  /** `uncommitted_work`: what would be lost. */
  files: z.array(z.string()),
});

export const ZChangesRequest = z.object({ sessionId: zId, paths: z.array(zRepoPath).max(GIT_MAX_FILES).optional() });
export const ZChangesResponse = z.union([
  z.object({
    ok: z.literal(true),
    branch: z.string().nullable(),
    head: z.string(),
    base: z.string(),
    baseKind: z.enum(['branch_point', 'session_start', 'head']),
    files: z.array(zGitFile),
    untracked: z.array(z.string()),
    dirty: z.boolean(),
    truncated: z.boolean(),
  }),
  ZGitRefusal,
]);

export const ZCommitRequest = z.object({
  sessionId: zId,
  message: z.string().trim().min(1).max(GIT_MAX_COMMIT_MESSAGE),
  /** Absent: stage and commit everything (untracked files too). */
  paths: z.array(zRepoPath).min(1).max(GIT_MAX_FILES).optional(),
});
export const ZCommitResponse = z.union([z.object({ ok: z.literal(true), commit: z.string(), summary: z.string() }), ZGitRefusal]);

export const ZPushRequest = z.object({ sessionId: zId });
export const ZPushResponse = z.union([
  z.object({ ok: z.literal(true), remote: z.string(), branch: z.string(), output: z.string(), compareUrl: z.string().nullable() }),
  ZGitRefusal,
]);

export const ZFinishRequest = z.object({
  sessionId: zId,
  merge: z.enum(['ff', 'merge', 'none']),
  remove: z.boolean(),
  /** The user's second confirmation that uncommitted work in the worktree may go. */
  force: z.boolean().optional(),
});
export const ZFinishResponse = z.union([
  z.object({ ok: z.literal(true), merged: z.string().nullable(), removed: z.boolean(), output: z.string() }),
  ZGitRefusal,
]);

export const ZRemoveWorktreeRequest = z.object({
  sessionId: zId,
  /** The user's second confirmation that uncommitted work in the worktree may go. */
  force: z.boolean().optional(),
});

export const ZDraftResponse = z.union([z.object({ ok: z.literal(true), message: z.string() }), ZGitRefusal]);
