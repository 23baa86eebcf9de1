import { acceptMessage } from '../../../services/sessions/accept-message.ts';
import { sendMessageNow } from '../../../services/sessions/send-now.ts';
import { authedProcedure } from '../../init.ts';
import { ZSendMessageRequest, ZSendMessageResponse } from './sessions.types.ts';

export const sendMessageRoute = authedProcedure
  .input(ZSendMessageRequest)
  .output(ZSendMessageResponse)
  .mutation(async ({ ctx, input }) => {
    const m = { sessionId: input.sessionId, text: input.text, source: 'web' as const, sourceKey: `web:${input.clientKey}` };
    const r = input.now ? await sendMessageNow({ db: ctx.db }, m) : { ...(await acceptMessage({ db: ctx.db }, m)), interrupted: false };
    return {
      message: { id: r.message.id, seq: r.message.seq, status: r.message.status, createdAt: r.message.createdAt },
      duplicate: r.duplicate,
      interrupted: r.interrupted,
    };
  });
