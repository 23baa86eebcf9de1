import type { Db } from '../../db/client.ts';
import { enqueueCommand } from '../../db/repos/agent-commands.ts';
import { AppError } from '../../domain/index.ts';
import { GIT_COMMANDS, GIT_RESULTS, type GitCommand, type GitFailure, type GitPayload, type GitResult } from '../../protocol/index.ts';

/** Why the hub got no answer from git on the node: the node is away, its agent predates git, it did not answer in time. */
export type NodeGitUnavailable = { ok: false; code: 'node_offline' | 'agent_too_old' | 'no_answer'; error: string };

/** A git row older than this was left by a waiter that died (the longest wait is 150 s). */
export const GIT_RETENTION_MS = 10 * 60_000;

/**
 * Git rows a waiter never removed (its process died while waiting): their answers hold diffs, so
 * the next git command on that node deletes them instead of leaving them to the retention sweep.
 */
export async function sweepGitLeftovers(db: Db, nodeId: string, before: Date): Promise<number> {
  const r = await db.agentCommand.deleteMany({ where: { nodeId, type: { in: [...GIT_COMMANDS] }, createdAt: { lt: before } } });
  return r.count;
}

/** How long the hub waits for each command (a push talks to a remote and may take long). */
export const GIT_WAIT_MS: Record<GitCommand, number> = {
  git_worktree_add: 30_000,
  git_changes: 30_000,
  git_commit: 60_000,
  git_push: 150_000,
  git_finish: 60_000,
};

/**
 * Sends one git command to a node's agent and waits for its answer, which the hub keeps in the
 * command's own row (never an AgentEvent: diffs are the user's code). The row is deleted as soon
 * as the answer is read or the wait ends, which also withdraws a command not yet sent. An agent
 * that did not list the command in its hello is never sent it.
 *
 * Decision: a write that outlives the wait (a slow push) still runs on the node; the user is told
 * the computer did not answer in time and reads the outcome from the changes view.
 */
export async function askNodeGit<T extends GitCommand>(
  db: Db,
  nodeId: string,
  type: T,
  payload: GitPayload<T>,
  o: { timeoutMs?: number; pollMs?: number } = {},
): Promise<GitResult<T> | NodeGitUnavailable> {
  const node = await db.node.findUnique({ where: { id: nodeId }, select: { online: true, agentCapabilities: true, agentVersion: true } });
  if (!node) throw new AppError('NOT_FOUND', { message: 'node not found' });
  if (!node.online) return { ok: false, code: 'node_offline', error: 'The computer is offline.' };
  if (!node.agentCapabilities.includes(type))
    return {
      ok: false,
      code: 'agent_too_old',
      error: `The agent on this computer (${node.agentVersion ?? 'unknown version'}) cannot run git for Bria; update it.`,
    };
  await sweepGitLeftovers(db, nodeId, new Date(Date.now() - GIT_RETENTION_MS));
  const commandId = await enqueueCommand(db, { nodeId, type, payload: payload as Record<string, unknown> });
  let raw: unknown = null;
  try {
    const deadline = Date.now() + (o.timeoutMs ?? GIT_WAIT_MS[type]);
    while (Date.now() < deadline) {
      const c = await db.agentCommand.findUnique({ where: { id: commandId }, select: { status: true, result: true } });
      if (c?.status === 'done' && c.result !== null) {
        raw = c.result;
        break;
      }
      await new Promise((r) => setTimeout(r, o.pollMs ?? 50));
    }
  } finally {
    await db.agentCommand.deleteMany({ where: { id: commandId } });
  }
  if (raw === null) return { ok: false, code: 'no_answer', error: 'The computer did not answer in time.' };
  const { command: _command, ...rest } = raw as Record<string, unknown>;
  const parsed = GIT_RESULTS[type].safeParse(rest);
  if (!parsed.success) {
    const failure: GitFailure = { ok: false, code: 'failed', error: 'The computer answered in an unexpected form.' };
    return failure as GitResult<T>;
  }
  return parsed.data as GitResult<T>;
}
