import { createHash } from 'node:crypto';
import { Composer } from 'grammy';
import { type AppError, isAppError } from '@bria/core/domain';
import { type CliTextRefusal, MAX_ATTACHMENT_BYTES } from '@bria/core/protocol';
import type { BotContext } from '../context.ts';
import type { AttachmentIn } from '../deps.ts';
import type { MessageKey } from '@bria/core/i18n';
import { closedByLifetime, getSessionView } from '@bria/core/services';
import { activeSession, rememberedSession, selectedNode } from './home.ts';
import { reply } from '../outbox/queue.ts';
import { replyStoredInQueue } from './queue-control.ts';

/** The sentences core names for a text its session's CLI could not pass on as sent. */
const CLI_TEXT_KEYS: ReadonlySet<string> = new Set(['msg.refusedCliCommand', 'msg.refusedCliWhitespace', 'msg.refusedCliWord'] satisfies CliTextRefusal[]);

/** Why core refused the input itself, by the rule it broke. */
function inputRefusalKey(error: AppError): MessageKey {
  switch (error.reason) {
    case 'control_characters':
      return 'msg.refusedControlChars';
    case 'too_long':
      return 'msg.refusedTooLong';
    case 'cli_text':
      return error.userMessage !== undefined && CLI_TEXT_KEYS.has(error.userMessage) ? (error.userMessage as CliTextRefusal) : 'msg.refusedGeneric';
    case 'empty':
    case undefined:
      return 'msg.refusedGeneric';
    default:
      return error.reason satisfies never;
  }
}

/**
 * Why core refused a message, in the user's words, by its AppError code. The session is re-read:
 * its state now is what the refusal was about (it changed between the active-session check and the
 * refusal).
 */
export async function refusalKey(ctx: BotContext, sessionId: string, error: AppError, withAttachment: boolean): Promise<MessageKey> {
  switch (error.code) {
    case 'PERSIST_FAILED':
      return withAttachment ? 'attach.failed' : 'msg.refusedGeneric';
    case 'INVALID_INPUT':
      return inputRefusalKey(error);
    case 'NOT_FOUND':
      return 'msg.refusedGone';
    case 'SESSION_NOT_ACCEPTING':
      break;
    default:
      return 'msg.refusedGeneric';
  }
  const s = await getSessionView(ctx.bria.deps.db, sessionId);
  if (!s) return 'msg.refusedGone';
  if (s.state === 'Closing' || s.state === 'ClosingAfterWork') return s.lifetimeExpired ? 'msg.refusedExpired' : 'msg.refusedClosing';
  if (s.state === 'Archived' || s.state === 'ResumeFailed')
    return (await closedByLifetime(ctx.bria.deps.db, s.id)) ? 'msg.refusedClosedExpired' : 'msg.refusedArchived';
  return 'msg.refusedGeneric';
}

/**
 * Plain text, photos and files go to the active session's durable queue; so does a text starting with
 * `/` that is not one of Bria's commands (their features answer those before this one), such as a
 * pasted path: it is never dropped. The user sees a reaction
 * once the message is stored, or a clear notice when it is refused; a failure to store an
 * attachment is reported as such and is never the executor's failure.
 */
export function messages(): Composer<BotContext> {
  const c = new Composer<BotContext>();
  c.on(['message:text', 'message:photo', 'message:document'], async (ctx) => {
    const { t, deps, chatId } = ctx.bria;
    const msg = ctx.message;
    const node = await selectedNode(ctx);
    const session = node ? await activeSession(ctx, node.id) : null;
    if (!session) {
      // The remembered session closed meanwhile (lifetime, Close, a failed resume): say which, not just "none".
      const gone = node ? await rememberedSession(ctx, node.id) : null;
      if (!gone) return void (await reply(ctx, t('msg.noActive')));
      return void (await reply(ctx, t((await closedByLifetime(deps.db, gone.id)) ? 'msg.refusedClosedExpired' : 'msg.refusedArchived')));
    }
    let attachments: AttachmentIn[] | undefined;
    if (msg.photo || msg.document) {
      // Files travel to the node inside one protocol frame: the limit is the protocol's, stated to the user.
      const max = Math.min(deps.maxAttachmentBytes ?? MAX_ATTACHMENT_BYTES, MAX_ATTACHMENT_BYTES);
      // Telegram offers a photo in several sizes: the largest one within the limit is taken.
      const file = msg.document ?? msg.photo?.filter((p) => (p.file_size ?? 0) <= max).at(-1) ?? msg.photo?.at(-1);
      if (!file) return;
      if ((file.file_size ?? 0) > max) return void (await reply(ctx, t('attach.tooBig', { limit: `${Math.floor(max / 1024)} KB` })));
      try {
        attachments = [
          await download(ctx, file.file_id, msg.document?.file_name ?? `photo-${msg.message_id}.jpg`, msg.document?.mime_type ?? 'image/jpeg', max),
        ];
      } catch (error) {
        deps.log.warn({ err: error instanceof Error ? error.name : 'unknown' }, 'attachment download failed');
        return void (await reply(ctx, t('attach.failed')));
      }
    }
    let stored: { messageId: string; seq: number };
    try {
      stored = await deps.actions.acceptMessage({
        sessionId: session.id,
        chatId,
        source: 'telegram',
        sourceKey: `tg:${chatId}:${msg.message_id}`,
        text: msg.text ?? msg.caption ?? '',
        ...(attachments ? { attachments } : {}),
      });
    } catch (error) {
      if (!isAppError(error)) throw error;
      // The engine leaves its own expiry notice in the outbox (exactly one); do not add a second.
      if (error.code === 'LIFETIME_EXPIRED') return void deps.wakeOutbox?.();
      return void (await reply(ctx, t(await refusalKey(ctx, session.id, error, attachments !== undefined))));
    }
    await ctx.react('👀').catch(() => undefined);
    await replyStoredInQueue(ctx, { sessionId: session.id, ...stored });
  });
  return c;
}

export async function download(ctx: BotContext, fileId: string, fileName: string, mimeType: string, max: number): Promise<AttachmentIn> {
  const file = await ctx.api.getFile(fileId);
  if (!file.file_path) throw new Error('no file path');
  const res = await fetch(`${ctx.bria.deps.apiRoot}/file/bot${ctx.api.token}/${file.file_path}`);
  if (!res.ok) throw new Error(`download http ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  if (bytes.length > max) throw new Error('too big');
  if (file.file_size !== undefined && bytes.length !== file.file_size) throw new Error('size mismatch');
  return { fileName: fileName.replace(/[/\\\0]/g, '_').slice(0, 200), mimeType, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}
