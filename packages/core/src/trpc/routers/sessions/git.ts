import { removeWorktreeAfterClose } from '../../../services/git/close-worktree.ts';
import { draftCommitMessage } from '../../../services/git/draft-message.ts';
import { commitSessionChanges, finishSessionWorktree, pushSessionBranch, readSessionChanges } from '../../../services/git/session-git.ts';
import { authedProcedure } from '../../init.ts';
import {
  ZChangesRequest,
  ZChangesResponse,
  ZCommitRequest,
  ZCommitResponse,
  ZDraftResponse,
  ZFinishRequest,
  ZFinishResponse,
  ZPushRequest,
  ZPushResponse,
  ZRemoveWorktreeRequest,
} from './git.types.ts';

/**
 * The session's git (docs/worktrees.md). A refusal is an answer (`ok: false` with the words to
 * show), not an error: the page shows git's own words beside the form.
 */
export const changesRoute = authedProcedure
  .input(ZChangesRequest)
  .output(ZChangesResponse)
  .query(({ ctx, input }) => readSessionChanges({ db: ctx.db }, { sessionId: input.sessionId, ...(input.paths ? { paths: input.paths } : {}) }));

export const commitRoute = authedProcedure
  .input(ZCommitRequest)
  .output(ZCommitResponse)
  .mutation(({ ctx, input }) =>
    commitSessionChanges({ db: ctx.db }, { sessionId: input.sessionId, message: input.message, ...(input.paths ? { paths: input.paths } : {}) }),
  );

export const pushRoute = authedProcedure
  .input(ZPushRequest)
  .output(ZPushResponse)
  .mutation(({ ctx, input }) => pushSessionBranch({ db: ctx.db }, { sessionId: input.sessionId }));

export const finishRoute = authedProcedure
  .input(ZFinishRequest)
  .output(ZFinishResponse)
  .mutation(({ ctx, input }) =>
    finishSessionWorktree({ db: ctx.db }, { sessionId: input.sessionId, merge: input.merge, remove: input.remove, ...(input.force ? { force: true } : {}) }),
  );

/** "Close → Remove worktree": waits for the close to finish, then Finish's remove path (no merge). */
export const removeWorktreeRoute = authedProcedure
  .input(ZRemoveWorktreeRequest)
  .output(ZFinishResponse)
  .mutation(({ ctx, input }) => removeWorktreeAfterClose({ db: ctx.db }, { sessionId: input.sessionId, ...(input.force ? { force: true } : {}) }));

/** "Draft message": the session's CLI writes a commit message in a turn of its own; its final answer comes back. */
export const draftMessageRoute = authedProcedure
  .input(ZPushRequest)
  .output(ZDraftResponse)
  .mutation(({ ctx, input }) => draftCommitMessage({ db: ctx.db }, { sessionId: input.sessionId, source: 'web' }));
