import { spawn } from 'node:child_process';
import { GIT_MAX_MESSAGE, type GitFailure } from '@bria/core/protocol';

/** One git run: its exit, what it printed (each stream clipped at `maxBytes`), and whether it was killed for time. */
export interface GitRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout was longer than `maxBytes` (the rest was read and dropped, so git still ended normally). */
  clipped: boolean;
  timedOut: boolean;
}

export interface GitEnv {
  /** The environment git runs with: the CLIs' own (no Bria secrets reach git hooks), see cli-env.ts. */
  env: Record<string, string>;
  /** The `git` program (tests may point it elsewhere). */
  bin?: string;
  /** BRIA_WORKTREES_DIR: worktrees go in `<this>/<repository name>/`; unset = beside each repository. */
  worktreesDir?: string;
}

export const GIT_TIMEOUT_MS = 30_000;
/** A push talks to a remote: longer, still bounded. */
export const GIT_PUSH_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * Runs `git <args>` in `cwd` without a shell (arguments are never parsed by anything but git), stdin
 * closed, never prompting (`GIT_TERMINAL_PROMPT=0`: a push needing a password fails with git's words
 * instead of hanging), killed after `timeoutMs`.
 */
export function runGit(g: GitEnv, cwd: string, args: string[], o: { timeoutMs?: number; maxBytes?: number } = {}): Promise<GitRun> {
  const maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
  return new Promise((resolve) => {
    const child = spawn(g.bin ?? 'git', args, {
      cwd,
      env: { ...g.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let clipped = false;
    let timedOut = false;
    child.stdout.on('data', (b: Buffer) => {
      if (outBytes >= maxBytes) {
        clipped = true;
        return;
      }
      out.push(b);
      outBytes += b.length;
      if (outBytes > maxBytes) clipped = true;
    });
    child.stderr.on('data', (b: Buffer) => {
      if (errBytes < 64 * 1024) err.push(b);
      errBytes += b.length;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, o.timeoutMs ?? GIT_TIMEOUT_MS);
    const done = (code: number | null, spawnError?: Error) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).subarray(0, maxBytes).toString('utf8');
      const stderr = spawnError ? `${spawnError.message}\n` : Buffer.concat(err).toString('utf8');
      resolve({ code, stdout, stderr, clipped, timedOut });
    };
    child.on('error', (e) => done(null, e));
    child.on('close', (code) => done(code));
  });
}

/** Git's own words for a failed run: its stderr, else its stdout (merge prints conflicts there), clipped. */
export function gitWords(r: GitRun): string {
  const words = [r.stderr.trim(), r.stdout.trim()].filter(Boolean).join('\n') || `git exited with code ${r.code}`;
  return words.length > GIT_MAX_MESSAGE ? `${words.slice(0, GIT_MAX_MESSAGE)}…` : words;
}

/** The refusal for a failed run: `timeout` when it was killed, else `git_failed` with git's words. */
export function gitFailure(r: GitRun, what: string): GitFailure {
  if (r.timedOut) return { ok: false, code: 'timeout', error: `git ${what} did not end in time and was stopped` };
  return { ok: false, code: 'git_failed', error: gitWords(r) };
}

/** Thrown inside a git command to answer with this refusal. */
export class GitRefused extends Error {
  constructor(readonly failure: GitFailure) {
    super(failure.error);
  }
}

/** Runs git and returns its stdout; a failed run ends the command with git's words. */
export async function git(g: GitEnv, cwd: string, args: string[], o: { timeoutMs?: number; maxBytes?: number; what?: string } = {}): Promise<string> {
  const r = await runGit(g, cwd, args, o);
  if (r.code !== 0) throw new GitRefused(gitFailure(r, o.what ?? args[0] ?? ''));
  return r.stdout;
}

/** The work tree's top folder; a folder outside any repository is `not_a_repository` with git's words. */
export async function topLevel(g: GitEnv, folder: string): Promise<string> {
  const r = await runGit(g, folder, ['rev-parse', '--show-toplevel']);
  if (r.code !== 0) throw new GitRefused({ ok: false, code: r.timedOut ? 'timeout' : 'not_a_repository', error: gitWords(r) });
  return r.stdout.trim();
}

/** The commit a ref names (full hash); git's words when it names none. */
export async function commitOf(g: GitEnv, cwd: string, ref: string): Promise<string> {
  return (await git(g, cwd, ['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`])).trim();
}

/** The branch checked out, or null on a detached HEAD. */
export async function currentBranch(g: GitEnv, cwd: string): Promise<string | null> {
  const r = await runGit(g, cwd, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  return r.code === 0 ? r.stdout.trim() : null;
}

/**
 * `git status --porcelain=v1 -z --untracked-files=all`: each entry's two status letters and path
 * (a rename's second, original path is skipped).
 */
export async function statusEntries(g: GitEnv, cwd: string): Promise<{ xy: string; path: string }[]> {
  const out = await git(g, cwd, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  const fields = out.split('\0');
  const entries: { xy: string; path: string }[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] ?? '';
    if (f.length < 4) continue;
    const xy = f.slice(0, 2);
    entries.push({ xy, path: f.slice(3) });
    if (xy[0] === 'R' || xy[0] === 'C') i++;
  }
  return entries;
}
