import type { Db } from '../../db/client.ts';
import { getSessionRow } from '../../db/repos/sessions.ts';
import { AppError } from '../../domain/index.ts';
import { finishSessionWorktree, type GitRefusalDto } from './session-git.ts';

/** States in which the session's CLI no longer runs in its folder. */
const CLOSED: readonly string[] = ['Archived', 'ResumeFailed'];
/** How long a "Close → Remove worktree" waits for the close to finish (the agent ends the CLI, then archives). */
export const CLOSE_WAIT_MS = 60_000;

/**
 * "Close → Remove worktree" (docs/worktrees.md): once the close the user asked for is done (the
 * session Archived: its CLI no longer runs in the worktree), the worktree goes through Finish's own
 * remove path, without merging. Uncommitted work is refused (`uncommitted_work`, with the files)
 * unless `force`, the user's second confirmation. A close that does not end within the wait is
 * answered `session_open`, whatever its state; nothing is removed then.
 */
export async function removeWorktreeAfterClose(
  deps: { db: Db; now?: () => Date },
  input: { sessionId: string; force?: boolean; waitMs?: number; pollMs?: number },
): Promise<{ ok: true; merged: string | null; removed: boolean; output: string } | GitRefusalDto> {
  const deadline = Date.now() + (input.waitMs ?? CLOSE_WAIT_MS);
  for (;;) {
    const row = await getSessionRow(deps.db, input.sessionId);
    if (!row) throw new AppError('NOT_FOUND', { message: 'session not found' });
    if (CLOSED.includes(row.state)) break;
    // Not closed in time (or not closing at all): the worktree is kept, whatever state the session is in.
    if (Date.now() >= deadline)
      return {
        ok: false,
        code: 'session_open',
        message: 'The session is not closed yet, so its CLI may still run in the worktree; the worktree is kept.',
        files: [],
      };
    await new Promise((r) => setTimeout(r, input.pollMs ?? 100));
  }
  return finishSessionWorktree(deps, { sessionId: input.sessionId, merge: 'none', remove: true, ...(input.force ? { force: true } : {}) });
}
