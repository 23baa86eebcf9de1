import { failureOfStatus, serviceWords, TRANSCRIBE_MAX_BYTES, type TranscribeFailure } from '../../domain/transcription.ts';
import type { TranscribeConfig } from '../../env.ts';

export type TranscribeResult = { ok: true; text: string } | { ok: false; failure: TranscribeFailure; status?: number; words?: string };

export interface TranscribeInput {
  bytes: Uint8Array;
  fileName: string;
  mimeType: string;
  /** Overrides the configured language for this one request. */
  language?: string;
  /** Ends the request early (the caller went away); the result is then `timeout`. */
  signal?: AbortSignal;
}

/**
 * Sends one recording to an OpenAI-compatible `POST {baseUrl}/audio/transcriptions` (multipart:
 * `file`, `model`, `language`, `response_format=json`) and reads `{ text }`. Never throws for
 * what the service or the network did: every failure comes back as a kind the user is told about,
 * with the service's own words when it gave some. Files over the 25 MB limit are refused here,
 * before a byte is uploaded.
 */
export async function transcribeAudio(config: TranscribeConfig, input: TranscribeInput): Promise<TranscribeResult> {
  if (input.bytes.length > TRANSCRIBE_MAX_BYTES) return { ok: false, failure: 'too_large' };
  const form = new FormData();
  // A copy: Blob wants an ArrayBuffer-backed view, and the caller's buffer may be a pooled slice.
  form.append('file', new Blob([new Uint8Array(input.bytes)], { type: input.mimeType }), input.fileName);
  form.append('model', config.model);
  const language = input.language ?? config.language;
  if (language) form.append('language', language);
  form.append('response_format', 'json');
  const timeout = AbortSignal.timeout(config.timeoutMs);
  const signal = input.signal ? AbortSignal.any([timeout, input.signal]) : timeout;
  let res: Response;
  let body: string;
  try {
    res = await fetch(`${config.baseUrl}/audio/transcriptions`, {
      method: 'POST',
      body: form,
      signal,
      headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
    });
    body = await res.text();
  } catch (error) {
    if (signal.aborted) return { ok: false, failure: 'timeout' };
    return { ok: false, failure: 'unreachable', ...wordsOf(networkWords(error)) };
  }
  const failure = failureOfStatus(res.status);
  if (failure) return { ok: false, failure, status: res.status, ...wordsOf(serviceWords(body)) };
  try {
    const text = (JSON.parse(body) as { text?: unknown }).text;
    // Silence (or noise) comes back as an empty text: nothing to send, said as such.
    if (typeof text === 'string') return text.trim() === '' ? { ok: false, failure: 'no_speech', status: res.status } : { ok: true, text: text.trim() };
  } catch {
    // Falls through: a 2xx that is not the documented JSON.
  }
  return { ok: false, failure: 'bad_answer', status: res.status, ...wordsOf(serviceWords(body)) };
}

const wordsOf = (words: string | null | undefined): { words?: string } => (words ? { words } : {});

/** undici hides the reason (ECONNREFUSED, ENOTFOUND…) in `cause`; that code is what the user can act on. */
function networkWords(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message.slice(0, 200);
  return error instanceof Error ? error.message.slice(0, 200) : undefined;
}
