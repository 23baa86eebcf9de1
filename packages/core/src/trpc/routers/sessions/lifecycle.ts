import { z } from 'zod';
import { closeSession } from '../../../services/sessions/close-session.ts';
import { compactSession } from '../../../services/sessions/compact-session.ts';
import { adoptInPlace } from '../../../services/sessions/adopt-in-place.ts';
import { continueHere } from '../../../services/sessions/continue-here.ts';
import { resumeSession } from '../../../services/sessions/resume-session.ts';
import { stopSession } from '../../../services/sessions/stop-session.ts';
import { authedProcedure } from '../../init.ts';
import { ZLifecycleRequest, ZSessionView } from './sessions.types.ts';

// The services decide (same rules as the bot's card buttons); the version plays the card version.
const lifecycle = (intent: typeof stopSession) =>
  authedProcedure
    .input(ZLifecycleRequest)
    .output(ZSessionView)
    .mutation(({ ctx, input }) =>
      intent({ db: ctx.db }, { sessionId: input.sessionId, ...(input.version === undefined ? {} : { cardVersion: input.version }) }),
    );

export const stopRoute = lifecycle(stopSession);
export const closeRoute = lifecycle(closeSession);
export const resumeRoute = lifecycle(resumeSession);

/** The CLI's own `/compact` while the session is idle; the result reaches the page as timeline evidence. */
export const compactRoute = authedProcedure
  .input(ZLifecycleRequest.pick({ sessionId: true }))
  .output(z.object({ commandId: z.uuid() }))
  .mutation(({ ctx, input }) => compactSession({ db: ctx.db }, { sessionId: input.sessionId }));

/**
 * "Continue here": the session's CLI running in a terminal at its computer is ended the way a person
 * would, verifiably, and the same native session resumed in Bria; `text` waits in the queue meanwhile.
 */
export const continueHereRoute = authedProcedure
  .input(z.object({ sessionId: z.uuid(), pid: z.number().int().positive(), text: z.string().max(200_000).optional() }))
  .output(ZSessionView)
  .mutation(({ ctx, input }) =>
    continueHere({ db: ctx.db }, { sessionId: input.sessionId, pid: input.pid, source: 'web', ...(input.text ? { text: input.text } : {}) }),
  );

/**
 * "Adopt in place": the session's CLI running in a tmux pane of the user's own becomes one of Bria's
 * sessions in that pane, never restarted; `text` waits in the queue meanwhile.
 */
export const adoptInPlaceRoute = authedProcedure
  .input(z.object({ sessionId: z.uuid(), pid: z.number().int().positive(), text: z.string().max(200_000).optional() }))
  .output(ZSessionView)
  .mutation(({ ctx, input }) =>
    adoptInPlace({ db: ctx.db }, { sessionId: input.sessionId, pid: input.pid, source: 'web', ...(input.text ? { text: input.text } : {}) }),
  );
