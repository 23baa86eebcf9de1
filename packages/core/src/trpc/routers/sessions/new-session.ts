import { resumeRecommendations } from '../../../services/sessions/list-archive.ts';
import { newSessionOptions } from '../../../services/sessions/session-view.ts';
import { authedProcedure } from '../../init.ts';
import { ZNewSessionOptionsRequest, ZNewSessionOptionsResponse, ZResumeRecommendationsRequest, ZResumeRecommendationsResponse } from './sessions.types.ts';

export const newSessionOptionsRoute = authedProcedure
  .input(ZNewSessionOptionsRequest)
  .output(ZNewSessionOptionsResponse)
  .query(({ ctx, input }) => newSessionOptions({ db: ctx.db }, { nodeId: input.nodeId, ...(input.executor ? { executor: input.executor } : {}) }));

/** The same service the bot's /new flow asks: empty and `enabled: false` while the setting is off. */
export const resumeRecommendationsRoute = authedProcedure
  .input(ZResumeRecommendationsRequest)
  .output(ZResumeRecommendationsResponse)
  .query(({ ctx, input }) => resumeRecommendations({ db: ctx.db }, input));
