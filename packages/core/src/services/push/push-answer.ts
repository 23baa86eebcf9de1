import { usePushAnswerToken } from '../../db/repos/push-answer.ts';
import { getPrompt } from '../../db/repos/prompts.ts';
import { AppError } from '../../domain/index.ts';
import { answerPrompt } from '../sessions/answer-prompt.ts';
import { depsOf, type ServiceDeps } from '../sessions/session-dto.ts';

/**
 * Allow / Deny pressed on a permission request's notification (issue 32). The service worker
 * posts the token its push carried; no cookie and no CSRF header are needed or read: the token is
 * the credential, bound to one request, one device and its user, valid for a short time and taken
 * once. The answer then goes through `answerPrompt`, the path the buttons use, so the first answer
 * from any channel wins and the others are told.
 *
 *  - `answered`: this press answered the request.
 *  - `already_answered`: the request had an answer (from here, Telegram, the dashboard or the
 *    computer) or the token was used before — a replay changes nothing.
 *  - `out_of_date`: the request no longer waits (its turn ended, it expired).
 *  - `expired` / `unknown`: the token is not taken; the notification opens the request's page.
 */
export type NotificationAnswerStatus = 'answered' | 'already_answered' | 'out_of_date' | 'expired' | 'unknown';

export interface NotificationAnswerResult {
  status: NotificationAnswerStatus;
  /** The request's session, for the page the notification opens (absent for an unknown token). */
  sessionId?: string;
  /** What the request was answered with, when it was (by this press or an earlier answer). */
  decision?: string;
}

export async function answerFromNotification(deps: ServiceDeps, input: { token: string; decision: 'allow' | 'deny' }): Promise<NotificationAnswerResult> {
  const d = depsOf(deps);
  const use = await usePushAnswerToken(d.db, { token: input.token, decision: input.decision, now: d.clock.now() });
  if (!use.ok && use.reason === 'unknown') return { status: 'unknown' };
  const prompt = await getPrompt(d.db, use.promptId);
  if (!prompt) return { status: 'unknown' };
  const sessionId = prompt.sessionId;
  const decided = (prompt.answer as { decision?: string } | null)?.decision;
  if (!use.ok) {
    if (use.reason === 'expired') return { status: 'expired', sessionId };
    return { status: 'already_answered', sessionId, ...(decided ? { decision: decided } : {}) };
  }
  try {
    const r = await answerPrompt(deps, { promptId: use.promptId, decision: input.decision, from: 'notification' });
    const now = r.prompt.answer?.decision;
    return { status: r.kind, sessionId, ...(now ? { decision: now } : {}) };
  } catch (err) {
    // A request the buttons could not answer this way either (a question needs its answers).
    if (err instanceof AppError && err.code === 'INVALID_INPUT') return { status: 'out_of_date', sessionId };
    throw err;
  }
}
