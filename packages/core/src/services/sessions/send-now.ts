import { AppError } from '../../domain/index.ts';
import { findMessageBySourceKey } from '../../db/repos/messages.ts';
import { type AcceptMessageInput, type AcceptMessageResult, acceptMessage, checkMessageText } from './accept-message.ts';
import { depsOf, type ServiceDeps } from './session-dto.ts';
import { stopSession } from './stop-session.ts';

/**
 * "Send now" (issue 33): the running turn is interrupted the CLI's own way — the same Stop as the
 * button (Escape for Claude, Codex's interrupt), its messages get their truthful outcome — and the
 * text is queued behind it, so it is typed as the next request once the CLI is free (while the
 * session is `Stopping` nothing joins the interrupted turn). Decision: the queue stays first in,
 * first out — a message already waiting before this one still goes first; reordering the durable
 * queue would give up the one order every front end shows.
 *
 * Without a running turn it is an ordinary send. A repeat of the same source key (a retried
 * request) stops nothing and returns the stored message; a text that would be refused is refused
 * before anything is stopped.
 */
export async function sendMessageNow(deps: ServiceDeps, input: AcceptMessageInput): Promise<AcceptMessageResult & { interrupted: boolean }> {
  const { db } = depsOf(deps);
  if (input.sourceKey && (await findMessageBySourceKey(db, input.sourceKey))) return { ...(await acceptMessage(deps, input)), interrupted: false };
  if (input.text.length === 0 && !input.attachments?.length) throw new AppError('INVALID_INPUT', { message: 'empty message', reason: 'empty' });
  await checkMessageText(db, input.sessionId, input.text);
  const s = await db.session.findUnique({ where: { id: input.sessionId }, select: { state: true } });
  let interrupted = false;
  if (s?.state === 'Running') {
    try {
      await stopSession(deps, { sessionId: input.sessionId });
      interrupted = true;
    } catch (err) {
      // The turn ended (or the session moved on) meanwhile: nothing to interrupt, the send goes on.
      if (!(err instanceof AppError)) throw err;
    }
  }
  return { ...(await acceptMessage(deps, input)), interrupted };
}
