import { randomUUID } from 'node:crypto';
import { AppError } from '../../domain/errors.ts';
import { decideVoiceNote, type TranscribeFailure, VOICE_NOTE_STATES, type VoiceNoteEvent, type VoiceNoteState } from '../../domain/transcription.ts';
import { MAX_ATTACHMENT_BYTES } from '../../protocol/index.ts';
import { acceptMessage } from '../sessions/accept-message.ts';
import { depsOf, type ServiceDeps } from '../sessions/session-dto.ts';
import { storeAttachmentFile } from '../sessions/store-attachment.ts';
import type { TranscribeResult } from './transcribe-audio.ts';

/** A stored recording and where its transcript stands. */
export interface VoiceNoteDto {
  id: string;
  sessionId: string;
  source: 'telegram' | 'web';
  state: VoiceNoteState;
  transcript: string | null;
  failure: TranscribeFailure | null;
  failureWords: string | null;
  fileName: string;
  mime: string;
  path: string;
  sizeBytes: number;
  sha256: string;
  messageId: string | null;
  /** Whether it fits in one message as a file (the protocol's attachment limit). */
  sendableAsFile: boolean;
}

const SELECT = {
  id: true,
  sessionId: true,
  source: true,
  state: true,
  transcript: true,
  failure: true,
  failureWords: true,
  fileName: true,
  mime: true,
  path: true,
  sizeBytes: true,
  sha256: true,
  messageId: true,
} as const;

type Row = {
  [K in keyof typeof SELECT]: K extends 'sizeBytes' ? number : K extends 'transcript' | 'failure' | 'failureWords' | 'messageId' ? string | null : string;
};

function toDto(r: Row): VoiceNoteDto {
  return {
    ...r,
    source: r.source === 'web' ? 'web' : 'telegram',
    state: VOICE_NOTE_STATES.find((s) => s === r.state) ?? 'kept',
    failure: (r.failure as TranscribeFailure | null) ?? null,
    sendableAsFile: r.sizeBytes <= MAX_ATTACHMENT_BYTES,
  };
}

/**
 * Stores a recording for its session (the same content-addressed folder as every attachment) and
 * records it as `kept`. Keyed by the source: the same Telegram update again finds the first row.
 */
export async function keepVoiceNote(
  deps: ServiceDeps,
  input: {
    sessionId: string;
    chatId?: bigint;
    source: 'telegram' | 'web';
    sourceKey: string;
    attachmentsDir: string;
    file: { fileName: string; mimeType: string; bytes: Uint8Array };
  },
): Promise<{ note: VoiceNoteDto; duplicate: boolean }> {
  const { db } = depsOf(deps);
  const known = await db.voiceNote.findUnique({ where: { sourceKey: input.sourceKey }, select: SELECT });
  if (known) return { note: toDto(known), duplicate: true };
  // Nothing is written for a session that does not exist (no folder, no file): "not found" in words.
  if (!(await db.session.findUnique({ where: { id: input.sessionId }, select: { id: true } })))
    throw new AppError('NOT_FOUND', { message: 'session not found' });
  const stored = await storeAttachmentFile(input.attachmentsDir, input.sessionId, input.file).catch((cause: unknown) => {
    throw new AppError('PERSIST_FAILED', { message: 'voice note could not be stored', cause });
  });
  const row = await db.voiceNote.upsert({
    where: { sourceKey: input.sourceKey },
    create: {
      id: randomUUID(),
      sessionId: input.sessionId,
      chatId: input.chatId ?? null,
      source: input.source,
      sourceKey: input.sourceKey,
      state: 'kept',
      fileName: stored.name,
      mime: stored.mime ?? input.file.mimeType,
      path: stored.path,
      sizeBytes: stored.sizeBytes,
      sha256: stored.sha256,
    },
    update: {},
    select: SELECT,
  });
  return { note: toDto(row), duplicate: false };
}

/** Records what the transcription service answered; only a `kept` note takes it (a retry never overwrites a decision). */
export async function recordTranscript(deps: ServiceDeps, input: { id: string; result: TranscribeResult }): Promise<VoiceNoteDto> {
  const { db } = depsOf(deps);
  const r = input.result;
  await db.voiceNote.updateMany({
    where: { id: input.id, state: 'kept' },
    data: r.ok
      ? { state: 'transcribed', transcript: r.text, failure: null, failureWords: null }
      : { state: 'failed', failure: r.failure, failureWords: r.words ?? null },
  });
  return getVoiceNote(deps, input.id);
}

export async function getVoiceNote(deps: ServiceDeps, id: string): Promise<VoiceNoteDto> {
  const row = await depsOf(deps).db.voiceNote.findUnique({ where: { id }, select: SELECT });
  if (!row) throw new AppError('NOT_FOUND', { message: 'voice note not found' });
  return toDto(row);
}

/** The note of a chat whose corrected text the bot waits for (Edit was pressed), newest first. */
export async function voiceNoteAwaitingText(deps: ServiceDeps, chatId: bigint): Promise<VoiceNoteDto | null> {
  const row = await depsOf(deps).db.voiceNote.findFirst({ where: { chatId, state: 'editing' }, orderBy: { updatedAt: 'desc' }, select: SELECT });
  return row ? toDto(row) : null;
}

export type VoiceNoteChange =
  | { ok: true; note: VoiceNoteDto; queued?: { messageId: string; seq: number; duplicate: boolean } }
  | { ok: false; reason: 'already_sent' | 'already_cancelled' | 'not_applicable' | 'too_large'; note: VoiceNoteDto };

/**
 * One of the buttons (or the corrected text after Edit). Send queues the transcript under the
 * source key `voice:<id>`, so a second tap, a redelivered update or a restart between the queueing
 * and the state change finds the same message: the text reaches the queue exactly once. The state
 * moves with `updateMany` from the state the decision was drawn for; losing that race is harmless.
 */
export async function changeVoiceNote(deps: ServiceDeps, input: { id: string; event: VoiceNoteEvent; text?: string }): Promise<VoiceNoteChange> {
  const { db } = depsOf(deps);
  const note = await getVoiceNote(deps, input.id);
  const d = decideVoiceNote(note.state, input.event);
  if (!d.ok) return { ok: false, reason: d.reason, note };
  let queued: { messageId: string; seq: number; duplicate: boolean } | undefined;
  if (d.next === 'sent') {
    if (input.event === 'send_file' && !note.sendableAsFile) return { ok: false, reason: 'too_large', note };
    const text = input.event === 'edited_text' ? (input.text ?? '').trim() : input.event === 'send_file' ? '' : (note.transcript ?? '');
    const attachments =
      input.event === 'send_file' ? [{ name: note.fileName, mime: note.mime, path: note.path, sizeBytes: note.sizeBytes, sha256: note.sha256 }] : undefined;
    const r = await acceptMessage(deps, {
      sessionId: note.sessionId,
      text,
      source: note.source,
      sourceKey: `voice:${note.id}`,
      ...(attachments ? { attachments } : {}),
    });
    queued = { messageId: r.message.id, seq: r.message.seq, duplicate: r.duplicate };
  }
  await db.voiceNote.updateMany({
    where: { id: note.id, state: note.state },
    data: {
      state: d.next,
      ...(queued ? { messageId: queued.messageId } : {}),
      ...(input.event === 'edited_text' ? { transcript: (input.text ?? '').trim() } : {}),
    },
  });
  return { ok: true, note: await getVoiceNote(deps, note.id), ...(queued ? { queued } : {}) };
}
