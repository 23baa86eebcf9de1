import { ATTACHMENT_NOT_STORED, ATTACHMENT_UNREADABLE } from '../../../engine/step/carry-attachments.ts';
import { getSessionView } from '../../../services/sessions/session-view.ts';
import { authedProcedure } from '../../init.ts';
import { ZGetSessionResponse, ZSessionRequest } from './sessions.types.ts';

/** An attachment failure is the attachment's, not the executor's: the queue says so apart. */
function attachmentFailure(m: { status: string; outcomeDetail: string | null }): 'not_stored' | 'unreadable' | null {
  if (m.status !== 'failed' && m.status !== 'terminal_failed') return null;
  return m.outcomeDetail === ATTACHMENT_NOT_STORED ? 'not_stored' : m.outcomeDetail === ATTACHMENT_UNREADABLE ? 'unreadable' : null;
}

export const getRoute = authedProcedure
  .input(ZSessionRequest)
  .output(ZGetSessionResponse)
  .query(async ({ ctx, input }) => {
    const view = await getSessionView({ db: ctx.db }, { sessionId: input.sessionId });
    return { ...view, conversation: { ...view.conversation, items: view.conversation.items.map((m) => ({ ...m, attachmentFailure: attachmentFailure(m) })) } };
  });
