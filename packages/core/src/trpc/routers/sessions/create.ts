import { createSession } from '../../../services/sessions/create-session.ts';
import { authedProcedure } from '../../init.ts';
import { ZCreateSessionRequest, ZSessionView } from './sessions.types.ts';

export const createRoute = authedProcedure
  .input(ZCreateSessionRequest)
  .output(ZSessionView)
  .mutation(async ({ ctx, input }) => {
    // The node's own check first: a missing folder, a file or a symlink is refused with its reason.
    const folder = ctx.checkFolder ? (await ctx.checkFolder(input.nodeId, input.folder.trim())).folder : input.folder;
    return createSession(
      { db: ctx.db },
      {
        nodeId: input.nodeId,
        folder,
        ...(input.executor ? { executor: input.executor } : {}),
        ...(input.permissionMode ? { permissionMode: input.permissionMode } : {}),
        ...(input.model !== undefined ? { model: input.model } : {}),
        ...(input.title ? { title: input.title } : {}),
        ...(input.worktree ? { worktree: input.worktree } : {}),
      },
    );
  });
