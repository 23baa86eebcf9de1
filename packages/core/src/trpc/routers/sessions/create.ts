import { createSession } from '../../../services/sessions/create-session.ts';
import { authedProcedure } from '../../init.ts';
import { ZCreateSessionRequest, ZSessionView } from './sessions.types.ts';

export const createRoute = authedProcedure
  .input(ZCreateSessionRequest)
  .output(ZSessionView)
  .mutation(({ ctx, input }) =>
    createSession({ db: ctx.db }, { nodeId: input.nodeId, folder: input.folder, ...(input.executor ? { executor: input.executor } : {}) }));
