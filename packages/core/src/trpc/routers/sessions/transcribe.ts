import { readFile } from 'node:fs/promises';
import { AppError } from '../../../domain/index.ts';
import { transcribeAudio } from '../../../services/transcribe/transcribe-audio.ts';
import { keepVoiceNote, recordTranscript } from '../../../services/transcribe/voice-notes.ts';
import { authedProcedure } from '../../init.ts';
import { ZTranscribeRequest, ZTranscribeResponse } from './transcribe.types.ts';

/**
 * The dashboard's record button (docs/voice.md): the recording is kept with the session first (as
 * every attachment, and as Telegram's voice notes), then sent to the configured transcription
 * service; the transcript comes back for the message box, where the user edits it and presses
 * Send (that is the confirmation). Without a service, or when it fails, the page attaches the
 * recording instead and says why.
 */
export const transcribeRoute = authedProcedure
  .input(ZTranscribeRequest)
  .output(ZTranscribeResponse)
  .mutation(async ({ ctx, input }) => {
    const dir = ctx.attachmentsDir;
    if (!dir) throw new AppError('INVALID_INPUT', { message: 'this server keeps no attachments', userMessage: 'send.noAttachments' });
    const bytes = Buffer.from(input.audio.base64, 'base64');
    if (bytes.length === 0) throw new AppError('INVALID_INPUT', { message: 'empty recording', reason: 'empty' });
    const mime = input.audio.mime.split(';')[0]?.trim() ?? 'application/octet-stream';
    let { note } = await keepVoiceNote(
      { db: ctx.db },
      {
        sessionId: input.sessionId,
        source: 'web',
        sourceKey: `web:voice:${input.clientKey}`,
        attachmentsDir: dir,
        file: { fileName: input.audio.name, mimeType: mime, bytes },
      },
    );
    if (note.state === 'kept' && ctx.transcribe) {
      const result = await transcribeAudio(ctx.transcribe, { bytes: await readFile(note.path), fileName: note.fileName, mimeType: note.mime });
      note = await recordTranscript({ db: ctx.db }, { id: note.id, result });
    }
    return { noteId: note.id, configured: ctx.transcribe !== null, transcript: note.transcript, failure: note.failure, words: note.failureWords };
  });
