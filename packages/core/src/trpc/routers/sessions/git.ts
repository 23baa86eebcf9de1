import { commitSessionChanges, finishSessionWorktree, pushSessionBranch, readSessionChanges } from '../../../services/git/session-git.ts';
import { authedProcedure } from '../../init.ts';
import {
  ZChangesRequest,
  ZChangesResponse,
  ZCommitRequest,
  ZCommitResponse,
  ZFinishRequest,
  ZFinishResponse,
  ZPushRequest,
  ZPushResponse,
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
