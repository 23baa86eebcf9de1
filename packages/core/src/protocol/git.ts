import { z } from 'zod';
import type { CommandFailureCode } from './command-results.ts';

/**
 * Git commands (docs/worktrees.md): the hub asks a node agent to run real `git` as the user in a
 * session's folder. Each answer travels as the command's `command_result` and is kept in the
 * command's own row until the waiting service reads it (like `read_journal`: diffs are the user's
 * code and never stay in the database). A refusal carries git's own words in `error` and a machine
 * `code` from `GIT_FAILURE_CODES`; the hub shows the words and decides only on the code.
 */
export const GIT_COMMANDS = ['git_worktree_add', 'git_changes', 'git_commit', 'git_push', 'git_finish'] as const;
export type GitCommand = (typeof GIT_COMMANDS)[number];

/** Bounds of what one answer carries (well under the 1 MiB frame with JSON escaping). */
export const GIT_MAX_FILES = 500;
export const GIT_MAX_FILE_DIFF = 64 * 1024;
export const GIT_MAX_DIFF_TOTAL = 384 * 1024;
/** Git's own words in a refusal (its stderr, else stdout), clipped. */
export const GIT_MAX_MESSAGE = 4000;
export const GIT_MAX_COMMIT_MESSAGE = 10_000;

const zPath = z.string().min(1).max(4096);
/** A path inside the repository as git prints it: relative, never an option, no `..` part. */
export const zRepoPath = z
  .string()
  .min(1)
  .max(4096)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL ends a path in git's -z output
  .refine((p) => !p.startsWith('/') && !p.startsWith('-') && !/\u0000/.test(p) && !p.split('/').includes('..'), 'not a path inside the repository');
/** A branch or commit name: never read as an option by git. */
const zRef = z
  .string()
  .min(1)
  .max(255)
  .refine((r) => !r.startsWith('-'), 'must not start with -');
const zSha = z.string().regex(/^[0-9a-f]{40,64}$/);

/**
 * `git worktree add -b <branch> <path> <base>` beside the repository: `<parent>/<branch>` where the
 * parent is `root` or, by default, `<repo>/../<repo name>.bria-worktrees`. `base` defaults to the
 * branch checked out in `repo`.
 */
export const zGitWorktreeAdd = z.object({ repo: zPath, branch: zRef, base: zRef.optional(), root: zPath.optional() });
/**
 * The folder's changes against `base` (a commit; absent = HEAD): numstat per file, each file's
 * unified diff (clipped), untracked files. `paths` limits the diffs to those files.
 */
export const zGitChanges = z.object({ folder: zPath, base: zRef.optional(), paths: z.array(zRepoPath).max(GIT_MAX_FILES).optional() });
/** Stage all (`paths` absent) or the chosen files, then commit with the user's own git identity. */
export const zGitCommit = z.object({
  folder: zPath,
  message: z.string().trim().min(1).max(GIT_MAX_COMMIT_MESSAGE),
  paths: z.array(zRepoPath).min(1).max(GIT_MAX_FILES).optional(),
});
/** Push the checked-out branch to its upstream, or (none set) to `origin` / the only remote, setting it. */
export const zGitPush = z.object({ folder: zPath });
/**
 * Merge `branch` into `base`, checked out in `repo` (`ff`: fast-forward only; `merge`: a merge
 * commit; `none`: no merge), then remove the worktree `folder` when `remove`. Uncommitted work in
 * the worktree is removed only with `force` (the user's second confirmation).
 */
export const zGitFinish = z.object({
  folder: zPath,
  repo: zPath,
  branch: zRef,
  base: zRef,
  merge: z.enum(['ff', 'merge', 'none']),
  remove: z.boolean(),
  force: z.boolean().optional(),
});

export const GIT_PAYLOADS = {
  git_worktree_add: zGitWorktreeAdd,
  git_changes: zGitChanges,
  git_commit: zGitCommit,
  git_push: zGitPush,
  git_finish: zGitFinish,
} as const satisfies Record<GitCommand, z.ZodType>;
export type GitPayload<T extends GitCommand> = z.infer<(typeof GIT_PAYLOADS)[T]>;

/**
 * `git_failed`: git refused (its words in `error`); `not_a_repository`: the folder is not in a git
 * work tree; `uncommitted_work`: finish would remove uncommitted work without `force` (`files` lists
 * it); `base_not_checked_out`: the base branch is not the one checked out in the repository;
 * `timeout`: git did not end in time (it was killed).
 */
export const GIT_FAILURE_CODES = [
  'git_failed',
  'not_a_repository',
  'uncommitted_work',
  'base_not_checked_out',
  'timeout',
  'invalid_payload',
  'unsupported',
  'interrupted',
  'failed',
] as const satisfies readonly CommandFailureCode[];
export type GitFailureCode = (typeof GIT_FAILURE_CODES)[number];

const zFailure = z.object({
  ok: z.literal(false),
  code: z.enum(GIT_FAILURE_CODES).catch('failed'),
  error: z.string().max(GIT_MAX_MESSAGE + 200),
  /** `uncommitted_work`: what would be lost (porcelain status lines). */
  files: z.array(z.string().max(4200)).max(GIT_MAX_FILES).optional(),
});
export type GitFailure = z.infer<typeof zFailure>;

export const zGitFile = z.object({
  path: z.string().max(4096),
  /** null: binary (numstat prints `-`). */
  added: z.number().int().nonnegative().nullable(),
  removed: z.number().int().nonnegative().nullable(),
  /** The file's unified diff; null when not asked for or left out for the answer's size. */
  diff: z.string().nullable(),
  /** The diff was cut at GIT_MAX_FILE_DIFF, or left out because the answer's budget ran out. */
  clipped: z.boolean(),
});
export type GitFile = z.infer<typeof zGitFile>;

export const zGitWorktreeAddResult = z.union([
  z.object({ ok: z.literal(true), path: z.string(), branch: z.string(), base: z.string(), baseCommit: zSha }),
  zFailure,
]);
export const zGitChangesResult = z.union([
  z.object({
    ok: z.literal(true),
    /** The branch checked out (null: detached HEAD). */
    branch: z.string().nullable(),
    head: zSha,
    base: zSha,
    files: z.array(zGitFile).max(GIT_MAX_FILES),
    untracked: z.array(z.string().max(4096)).max(GIT_MAX_FILES),
    /** Uncommitted changes or untracked files in the folder. */
    dirty: z.boolean(),
    /** More files changed than GIT_MAX_FILES. */
    truncated: z.boolean(),
  }),
  zFailure,
]);
export const zGitCommitResult = z.union([z.object({ ok: z.literal(true), commit: zSha, summary: z.string().max(GIT_MAX_MESSAGE) }), zFailure]);
export const zGitPushResult = z.union([
  z.object({
    ok: z.literal(true),
    remote: z.string().max(255),
    branch: z.string().max(255),
    /** The remote's URL as configured (for a compare link), credentials removed. */
    remoteUrl: z.string().max(2048).nullable(),
    /** What git printed (the remote's own lines included). */
    output: z.string().max(GIT_MAX_MESSAGE),
  }),
  zFailure,
]);
export const zGitFinishResult = z.union([
  z.object({ ok: z.literal(true), merged: zSha.nullable(), removed: z.boolean(), output: z.string().max(GIT_MAX_MESSAGE) }),
  zFailure,
]);

export const GIT_RESULTS = {
  git_worktree_add: zGitWorktreeAddResult,
  git_changes: zGitChangesResult,
  git_commit: zGitCommitResult,
  git_push: zGitPushResult,
  git_finish: zGitFinishResult,
} as const satisfies Record<GitCommand, z.ZodType>;
export type GitResult<T extends GitCommand> = z.infer<(typeof GIT_RESULTS)[T]>;

export function isGitCommand(type: string): type is GitCommand {
  return (GIT_COMMANDS as readonly string[]).includes(type);
}
