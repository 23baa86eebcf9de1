import { getSessionView } from '../../../services/sessions/session-view.ts';
import { authedProcedure } from '../../init.ts';
import { ZGetSessionResponse, ZSessionRequest } from './sessions.types.ts';

export const getRoute = authedProcedure
  .input(ZSessionRequest)
  .output(ZGetSessionResponse)
  .query(({ ctx, input }) => getSessionView({ db: ctx.db }, { sessionId: input.sessionId }));
