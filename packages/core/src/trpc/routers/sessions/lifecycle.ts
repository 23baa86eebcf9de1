import { z } from 'zod';
import { closeSession } from '../../../services/sessions/close-session.ts';
import { compactSession } from '../../../services/sessions/compact-session.ts';
import { resumeSession } from '../../../services/sessions/resume-session.ts';
import { stopSession } from '../../../services/sessions/stop-session.ts';
import { authedProcedure } from '../../init.ts';
import { ZLifecycleRequest, ZSessionView } from './sessions.types.ts';

// The services decide (same rules as the bot's card buttons); the version plays the card version.
const lifecycle = (intent: typeof stopSession) =>
  authedProcedure
    .input(ZLifecycleRequest)
    .output(ZSessionView)
    .mutation(({ ctx, input }) => intent({ db: ctx.db }, { sessionId: input.sessionId, ...(input.version === undefined ? {} : { cardVersion: input.version }) }));

export const stopRoute = lifecycle(stopSession);
export const closeRoute = lifecycle(closeSession);
export const resumeRoute = lifecycle(resumeSession);

/** The CLI's own `/compact` while the session is idle; the result reaches the page as timeline evidence. */
export const compactRoute = authedProcedure
  .input(ZLifecycleRequest.pick({ sessionId: true }))
  .output(z.object({ commandId: z.uuid() }))
  .mutation(({ ctx, input }) => compactSession({ db: ctx.db }, { sessionId: input.sessionId }));
