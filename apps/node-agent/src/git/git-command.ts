import { type CommandAnswer, type GitCommand, GIT_PAYLOADS } from '@bria/core/protocol';
import { ZodError } from 'zod';
import { readChanges } from './changes.ts';
import { commit, push } from './commit-push.ts';
import { finish } from './finish.ts';
import { GitRefused, type GitEnv } from './run-git.ts';
import { worktreeAdd } from './worktree-add.ts';

/**
 * Runs one git command of the hub (protocol/git.ts). Git commands of this agent run one after
 * another: two of them on one repository would meet on git's index lock. They do not wait behind
 * a session's CLI commands (they never touch the CLI); the hub sends the write actions only while
 * no turn is in flight (domain/git-actions.ts).
 */
export class GitCommands {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly g: GitEnv) {}

  run(type: GitCommand, payload: unknown): Promise<CommandAnswer> {
    const next = this.chain.then(() => this.runNow(type, payload));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async runNow(type: GitCommand, payload: unknown): Promise<CommandAnswer> {
    try {
      switch (type) {
        case 'git_worktree_add':
          return await worktreeAdd(this.g, GIT_PAYLOADS.git_worktree_add.parse(payload));
        case 'git_changes':
          return await readChanges(this.g, GIT_PAYLOADS.git_changes.parse(payload));
        case 'git_commit':
          return await commit(this.g, GIT_PAYLOADS.git_commit.parse(payload));
        case 'git_push':
          return await push(this.g, GIT_PAYLOADS.git_push.parse(payload));
        case 'git_finish':
          return await finish(this.g, GIT_PAYLOADS.git_finish.parse(payload));
        default:
          return type satisfies never;
      }
    } catch (err) {
      if (err instanceof GitRefused) return err.failure;
      if (err instanceof ZodError)
        return {
          ok: false,
          code: 'invalid_payload',
          error: `invalid payload: ${err.issues
            .map((i) => `${i.path.join('.')}: ${i.message}`)
            .join('; ')
            .slice(0, 300)}`,
        };
      return { ok: false, code: 'failed', error: (err as Error).message.slice(0, 500) };
    }
  }
}
