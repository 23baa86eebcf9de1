import { acceptMessage } from '../../../services/sessions/accept-message.ts';
import { authedProcedure } from '../../init.ts';
import { ZSendMessageRequest, ZSendMessageResponse } from './sessions.types.ts';

export const sendMessageRoute = authedProcedure
  .input(ZSendMessageRequest)
  .output(ZSendMessageResponse)
  .mutation(async ({ ctx, input }) => {
    const r = await acceptMessage({ db: ctx.db }, { sessionId: input.sessionId, text: input.text, source: 'web', sourceKey: `web:${input.clientKey}` });
    return { message: { id: r.message.id, seq: r.message.seq, status: r.message.status, createdAt: r.message.createdAt }, duplicate: r.duplicate };
  });
