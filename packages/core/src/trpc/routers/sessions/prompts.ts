import { answerPrompt, listSessionPrompts, type PromptView } from '../../../services/sessions/answer-prompt.ts';
import type { ServiceDeps } from '../../../services/sessions/session-dto.ts';
import { authedProcedure } from '../../init.ts';
import { ZSessionRequest } from './sessions.types.ts';
import { ZAnswerPromptRequest, ZAnswerPromptResponse, ZPromptsResponse } from './prompts.types.ts';

/** Ended prompts shown beside the open ones (the full history is on the timeline). */
const RECENT_ENDED = 5;
const OPEN_MAX = 50;

/** Open prompts, then the last few ended, newest first. */
export async function sessionPrompts(deps: ServiceDeps, sessionId: string): Promise<PromptView[]> {
  const [open, recent] = await Promise.all([
    listSessionPrompts(deps, sessionId, { open: true, limit: OPEN_MAX }),
    listSessionPrompts(deps, sessionId, { limit: OPEN_MAX + RECENT_ENDED }),
  ]);
  const openIds = new Set(open.map((p) => p.id));
  const ended = recent.filter((p) => !openIds.has(p.id)).slice(0, RECENT_ENDED);
  return [...open, ...ended].sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime() || (a.id < b.id ? 1 : -1));
}

export const promptsRoute = authedProcedure
  .input(ZSessionRequest)
  .output(ZPromptsResponse)
  .query(async ({ ctx, input }) => ({ prompts: await sessionPrompts({ db: ctx.db }, input.sessionId) }));

/** The dashboard's answer; the first answer wins from whichever front end (the service decides). */
export const answerPromptRoute = authedProcedure
  .input(ZAnswerPromptRequest)
  .output(ZAnswerPromptResponse)
  .mutation(({ ctx, input }) =>
    answerPrompt(
      { db: ctx.db },
      {
        promptId: input.promptId,
        decision: input.decision,
        from: 'dashboard',
        ...(input.message === undefined ? {} : { message: input.message }),
        ...(input.answers === undefined ? {} : { answers: input.answers }),
      },
    ),
  );
