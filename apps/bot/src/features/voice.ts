import { readFile } from 'node:fs/promises';
import { Composer, InlineKeyboard } from 'grammy';
import { isAppError, type VoiceNoteEvent } from '@bria/core/domain';
import type { MessageKey, Translator } from '@bria/core/i18n';
import { MAX_ATTACHMENT_BYTES } from '@bria/core/protocol';
import {
  changeVoiceNote,
  closedByLifetime,
  getVoiceNote,
  recordTranscript,
  transcribeAudio,
  type VoiceNoteDto,
  voiceNoteAwaitingText,
} from '@bria/core/services';
import { cb } from '../card/callback-data.ts';
import type { BotContext } from '../context.ts';
import { edit, reply } from '../outbox/queue.ts';
import { activeSession, rememberedSession, selectedNode } from './home.ts';
import { download, refusalKey } from './messages.ts';
import { replyStoredInQueue } from './queue-control.ts';

/** Bots may download files up to 20 MB through getFile (below the transcription services' 25 MB). */
const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OPS: Record<string, VoiceNoteEvent> = { s: 'send', e: 'edit', c: 'cancel', f: 'send_file' };

const button = (op: keyof typeof OPS, id: string) => cb.encode({ a: 'voice', gen: 0, arg: `${op}:${id}` });
const sizeText = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

/** What the chat shows for a note as it stands, with the buttons that still apply. */
function view(t: Translator, note: VoiceNoteDto): { text: string; keyboard?: InlineKeyboard } {
  if (note.state === 'transcribed' || note.state === 'editing') {
    const keyboard = new InlineKeyboard()
      .text(t('button.voiceSend'), button('s', note.id))
      .text(t('button.voiceEdit'), button('e', note.id))
      .text(t('button.voiceCancel'), button('c', note.id));
    return { text: t('voice.transcript', { text: note.transcript ?? '' }), keyboard };
  }
  const keyboard = note.sendableAsFile
    ? new InlineKeyboard().text(t('button.voiceFile'), button('f', note.id)).text(t('button.voiceCancel'), button('c', note.id))
    : undefined;
  if (note.state === 'kept') return { text: t('voice.kept', { size: sizeText(note.sizeBytes) }), ...(keyboard ? { keyboard } : {}) };
  const words = note.failureWords ? t('voice.words', { words: note.failureWords }) : '';
  const advice = note.sendableAsFile ? t('voice.adviceFile') : t('voice.adviceNoFile', { limit: `${Math.floor(MAX_ATTACHMENT_BYTES / 1024)} KB` });
  const reason = t(`voice.why.${note.failure ?? 'refused'}` as MessageKey);
  return { text: t('voice.failed', { reason, words, advice }), ...(keyboard ? { keyboard } : {}) };
}

/**
 * Voice notes and audio (docs/voice.md). The recording is downloaded and kept with the active
 * session (the attachments folder, SHA-256 named) whatever follows; with a transcription service
 * the transcript waits for Send / Edit / Cancel (a VoiceNote row, so a second tap or a restart
 * finds it decided); without one, or when the service fails, the reply says what happened and
 * offers to send the recording as a file.
 */
export function voice(): Composer<BotContext> {
  const c = new Composer<BotContext>();

  c.on(['message:voice', 'message:audio'], async (ctx) => {
    const { t, deps, chatId } = ctx.bria;
    const msg = ctx.message;
    const node = await selectedNode(ctx);
    const session = node ? await activeSession(ctx, node.id) : null;
    if (!session) {
      const gone = node ? await rememberedSession(ctx, node.id) : null;
      if (!gone) return void (await reply(ctx, t('msg.noActive')));
      return void (await reply(ctx, t((await closedByLifetime(deps.db, gone.id)) ? 'msg.refusedClosedExpired' : 'msg.refusedArchived')));
    }
    const file = msg.voice ?? msg.audio;
    if (!file) return;
    if ((file.file_size ?? 0) > TELEGRAM_DOWNLOAD_LIMIT) return void (await reply(ctx, t('voice.tooBig', { limit: '20 MB' })));
    const ext = msg.voice ? 'ogg' : (/\.(\w{1,8})$/.exec(msg.audio?.file_name ?? '')?.[1] ?? 'mp3');
    const fileName = msg.audio?.file_name ?? `voice-${msg.message_id}.${ext}`;
    const mimeType = file.mime_type ?? (msg.voice ? 'audio/ogg' : 'audio/mpeg');
    let note: VoiceNoteDto;
    try {
      const bytes = await download(ctx, file.file_id, fileName, mimeType, TELEGRAM_DOWNLOAD_LIMIT);
      note = (await deps.actions.keepVoiceNote({ sessionId: session.id, chatId, sourceKey: `tg:${chatId}:${msg.message_id}`, file: bytes })).note;
    } catch (error) {
      if (isAppError(error) || error instanceof Error) deps.log.warn({ err: error.name }, 'voice note could not be kept');
      return void (await reply(ctx, t('attach.failed')));
    }
    // A redelivered update finds the note already transcribed (or failed): it is shown, not sent again.
    if (note.state === 'kept' && deps.transcribe) {
      await ctx.replyWithChatAction('typing').catch(() => undefined);
      const bytes = await readFile(note.path);
      const result = await transcribeAudio(deps.transcribe, { bytes, fileName: note.fileName, mimeType: note.mime });
      if (!result.ok) deps.log.info({ failure: result.failure, status: result.status }, 'voice note not transcribed');
      note = await recordTranscript(deps, { id: note.id, result });
    }
    const v = view(t, note);
    await reply(ctx, v.text, v.keyboard ? { keyboard: v.keyboard } : {});
  });

  // After Edit: the chat's next text (not a command) is the corrected transcript.
  c.on('message:text', async (ctx, next) => {
    const { t, deps, chatId } = ctx.bria;
    if (ctx.message.text.startsWith('/')) return next();
    const note = await voiceNoteAwaitingText(deps, chatId);
    if (!note) return next();
    await decide(ctx, note.id, 'edited_text', ctx.message.text, undefined, t);
  });

  c.callbackQuery(/^voice:/, async (ctx) => {
    const data = cb.decode(ctx.callbackQuery.data);
    const [op, id] = (data?.arg ?? '').split(':');
    const event = op ? OPS[op] : undefined;
    if (!event || !id || !UUID.test(id)) return;
    await decide(ctx, id, event, undefined, ctx.callbackQuery.message?.message_id, ctx.bria.t);
  });
  return c;
}

/** Carries out a button (or the edited text) and answers it in the chat; `where` is the message with the buttons. */
async function decide(ctx: BotContext, id: string, event: VoiceNoteEvent, text: string | undefined, where: number | undefined, t: Translator): Promise<void> {
  const { deps } = ctx.bria;
  // A press seen again after a restart was answered already: Telegram refuses a second answer.
  const answerPress = (words?: string) => ctx.answerCallbackQuery(words === undefined ? {} : { text: words }).catch(() => undefined);
  const answer = async (words: string) => void (ctx.callbackQuery ? await answerPress(words) : await reply(ctx, words));
  let r: Awaited<ReturnType<typeof changeVoiceNote>>;
  try {
    r = await changeVoiceNote(deps, { id, event, ...(text !== undefined ? { text } : {}) });
  } catch (error) {
    if (!isAppError(error)) throw error;
    if (error.code === 'NOT_FOUND') return void (await answer(t('voice.notApplicable')));
    const sessionId = (await getVoiceNote(deps, id).catch(() => undefined))?.sessionId;
    return void (await answer(t(sessionId ? await refusalKey(ctx, sessionId, error, event === 'send_file') : 'msg.refusedGeneric')));
  }
  if (!r.ok) {
    const key = r.reason === 'already_sent' ? 'voice.alreadySent' : r.reason === 'already_cancelled' ? 'voice.alreadyCancelled' : 'voice.notApplicable';
    return void (await answer(t(key)));
  }
  if (event === 'edit') {
    if (ctx.callbackQuery) await answerPress();
    return void (await reply(ctx, t('voice.editAsk')));
  }
  const done = r.queued
    ? event === 'send_file'
      ? t('voice.sentFile', { seq: r.queued.seq })
      : t('voice.sent', { seq: r.queued.seq, text: r.note.transcript ?? '' })
    : t('voice.cancelled');
  if (ctx.callbackQuery) await answerPress(done.split('\n')[0] ?? done);
  if (where !== undefined) await edit(ctx, where, done);
  else await reply(ctx, done);
  if (r.queued && !r.queued.duplicate) await replyStoredInQueue(ctx, { sessionId: r.note.sessionId, messageId: r.queued.messageId, seq: r.queued.seq });
}
