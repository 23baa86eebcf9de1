import { listOpenSessions } from '../../../services/sessions/get-session.ts';
import { authedProcedure } from '../../init.ts';
import { ZListOpenResponse, ZNodeRequest } from './sessions.types.ts';

export const listOpenRoute = authedProcedure
  .input(ZNodeRequest)
  .output(ZListOpenResponse)
  .query(async ({ ctx, input }) => ({ sessions: await listOpenSessions({ db: ctx.db }, { nodeId: input.nodeId }) }));
