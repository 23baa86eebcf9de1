/**
 * Speech to text (issue 34): what a transcription service's answer means for the user, and what a
 * voice note's confirmation buttons may do. Pure: the HTTP client (services/transcribe) and the
 * bot's buttons carry these decisions out.
 */

/** OpenAI's own upload limit for `/audio/transcriptions`; a larger file is refused before uploading. */
export const TRANSCRIBE_MAX_BYTES = 25 * 1024 * 1024;
/** How long one transcription may take before it is given up. */
export const TRANSCRIBE_TIMEOUT_MS = 60_000;

/** Why a transcription gave no text. Each kind has its own sentence for the user. */
export const TRANSCRIBE_FAILURES = [
  'timeout',
  'key_refused',
  'too_large',
  'rate_limited',
  'service_error',
  'unreachable',
  'refused',
  'bad_answer',
  'no_speech',
] as const;
export type TranscribeFailure = (typeof TRANSCRIBE_FAILURES)[number];

/** What an HTTP status of the service means; null for a success. */
export function failureOfStatus(status: number): TranscribeFailure | null {
  if (status >= 200 && status < 300) return null;
  if (status === 401 || status === 403) return 'key_refused';
  if (status === 413) return 'too_large';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'service_error';
  return 'refused';
}

/** Whether trying the same audio again later may help (the reply then says so). */
export function failureIsRetryable(kind: TranscribeFailure): boolean {
  switch (kind) {
    case 'timeout':
    case 'rate_limited':
    case 'service_error':
    case 'unreachable':
      return true;
    case 'key_refused':
    case 'too_large':
    case 'refused':
    case 'bad_answer':
    case 'no_speech':
      return false;
    default:
      return kind satisfies never;
  }
}

/**
 * The service's own words for the reply: the `error.message` of OpenAI's error shape, else the
 * body's text, one line, at most 200 characters; null when it said nothing readable.
 */
export function serviceWords(body: string): string | null {
  let text = body;
  try {
    const parsed = JSON.parse(body) as unknown;
    const message = (parsed as { error?: { message?: unknown } } | null)?.error?.message ?? (parsed as { detail?: unknown } | null)?.detail;
    if (typeof message === 'string') text = message;
  } catch {
    // Not JSON: the text itself (a proxy's HTML page is cut like any other text).
  }
  // Control characters never reach a chat (a code-point test: no control characters in a regex).
  let visible = '';
  for (const ch of text.replace(/<[^>]*>/g, ' ')) visible += ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f ? ' ' : ch;
  const line = visible.replace(/\s+/g, ' ').trim();
  if (line === '') return null;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** A voice note's transcript waiting for the user's word: Send, Edit (then a text), Cancel. */
export const VOICE_NOTE_STATES = ['transcribed', 'editing', 'sent', 'cancelled', 'failed', 'kept'] as const;
export type VoiceNoteState = (typeof VOICE_NOTE_STATES)[number];
export type VoiceNoteEvent = 'send' | 'edit' | 'edited_text' | 'cancel' | 'send_file';

/**
 * The buttons as a table: a missing entry is a press that no longer applies (a second tap on Send
 * finds `sent`). `failed` and `kept` notes (no transcript) can only go as a file or be dropped.
 */
const VOICE_NOTE_TABLE = {
  transcribed: { send: 'sent', edit: 'editing', cancel: 'cancelled' },
  editing: { edited_text: 'sent', cancel: 'cancelled', send: 'sent' },
  sent: {},
  cancelled: {},
  failed: { send_file: 'sent', cancel: 'cancelled' },
  kept: { send_file: 'sent', cancel: 'cancelled' },
} as const satisfies Record<VoiceNoteState, Partial<Record<VoiceNoteEvent, VoiceNoteState>>>;

export type VoiceNoteDecision = { ok: true; next: VoiceNoteState } | { ok: false; reason: 'already_sent' | 'already_cancelled' | 'not_applicable' };

export function decideVoiceNote(state: VoiceNoteState, event: VoiceNoteEvent): VoiceNoteDecision {
  const next = (VOICE_NOTE_TABLE[state] as Partial<Record<VoiceNoteEvent, VoiceNoteState>>)[event];
  if (next) return { ok: true, next };
  if (state === 'sent') return { ok: false, reason: 'already_sent' };
  if (state === 'cancelled') return { ok: false, reason: 'already_cancelled' };
  return { ok: false, reason: 'not_applicable' };
}
