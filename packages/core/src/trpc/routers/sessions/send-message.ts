import { AppError } from '../../../domain/index.ts';
import { MAX_ATTACHMENT_BYTES } from '../../../protocol/index.ts';
import { acceptMessage } from '../../../services/sessions/accept-message.ts';
import { sendMessageNow } from '../../../services/sessions/send-now.ts';
import { storeAttachmentFile } from '../../../services/sessions/store-attachment.ts';
import type { StoredAttachment } from '../../../engine/step/carry-attachments.ts';
import { authedProcedure } from '../../init.ts';
import { ZSendMessageRequest, ZSendMessageResponse } from './sessions.types.ts';

/**
 * A message from the dashboard, with files pasted, dropped or picked in the composer (issue 34):
 * each is stored on this server first (storeAttachmentFile, the path Telegram's downloads take) and
 * goes with the message through the queue; the node hands it to the CLI the way it reads files
 * (Claude gets an image as an image). A repeat of the same client key stores nothing again.
 */
export const sendMessageRoute = authedProcedure
  .input(ZSendMessageRequest)
  .output(ZSendMessageResponse)
  .mutation(async ({ ctx, input }) => {
    const files = input.attachments ?? [];
    if (input.text.trim() === '' && files.length === 0) throw new AppError('INVALID_INPUT', { message: 'empty message', reason: 'empty' });
    let attachments: StoredAttachment[] | undefined;
    if (files.length > 0) {
      const bytes = files.map((f) => Buffer.from(f.base64, 'base64'));
      if (bytes.reduce((n, b) => n + b.length, 0) > MAX_ATTACHMENT_BYTES)
        throw new AppError('INVALID_INPUT', { message: `attachments over ${MAX_ATTACHMENT_BYTES} bytes`, userMessage: 'send.tooBig', reason: 'too_long' });
      const dir = ctx.attachmentsDir;
      if (!dir) throw new AppError('INVALID_INPUT', { message: 'this server keeps no attachments', userMessage: 'send.noAttachments' });
      attachments = [];
      for (const [i, f] of files.entries())
        attachments.push(await storeAttachmentFile(dir, input.sessionId, { fileName: f.name, mimeType: f.mime, bytes: bytes[i] as Buffer }));
    }
    const m = {
      sessionId: input.sessionId,
      text: input.text,
      source: 'web' as const,
      sourceKey: `web:${input.clientKey}`,
      ...(attachments ? { attachments } : {}),
    };
    const r = input.now ? await sendMessageNow({ db: ctx.db }, m) : { ...(await acceptMessage({ db: ctx.db }, m)), interrupted: false };
    return {
      message: { id: r.message.id, seq: r.message.seq, status: r.message.status, createdAt: r.message.createdAt },
      duplicate: r.duplicate,
      interrupted: r.interrupted,
    };
  });
