import { cancelMessage, editMessage } from '../../../services/sessions/change-message.ts';
import { authedProcedure } from '../../init.ts';
import { ZCancelMessageRequest, ZChangedMessageResponse, ZEditMessageRequest } from './sessions.types.ts';

export const cancelMessageRoute = authedProcedure
  .input(ZCancelMessageRequest)
  .output(ZChangedMessageResponse)
  .mutation(({ ctx, input }) => cancelMessage({ db: ctx.db }, { messageId: input.messageId, from: 'web' }));

export const editMessageRoute = authedProcedure
  .input(ZEditMessageRequest)
  .output(ZChangedMessageResponse)
  .mutation(({ ctx, input }) => editMessage({ db: ctx.db }, { messageId: input.messageId, text: input.text, from: 'web' }));
