import { describe, expect, it } from 'vitest';
import {
  decideVoiceNote,
  failureIsRetryable,
  failureOfStatus,
  serviceWords,
  TRANSCRIBE_FAILURES,
  type TranscribeFailure,
  VOICE_NOTE_STATES,
  type VoiceNoteEvent,
  type VoiceNoteState,
} from './transcription.ts';

describe('failureOfStatus', () => {
  const TABLE: [number, TranscribeFailure | null][] = [
    [200, null],
    [204, null],
    [400, 'refused'],
    [401, 'key_refused'],
    [403, 'key_refused'],
    [404, 'refused'],
    [413, 'too_large'],
    [415, 'refused'],
    [429, 'rate_limited'],
    [500, 'service_error'],
    [502, 'service_error'],
    [503, 'service_error'],
  ];
  for (const [status, kind] of TABLE) it(`${status} → ${kind}`, () => expect(failureOfStatus(status)).toBe(kind));
});

describe('failureIsRetryable', () => {
  const TABLE: Record<TranscribeFailure, boolean> = {
    timeout: true,
    key_refused: false,
    too_large: false,
    rate_limited: true,
    service_error: true,
    unreachable: true,
    refused: false,
    bad_answer: false,
    no_speech: false,
  };
  it('covers every kind', () => expect(Object.keys(TABLE).sort()).toEqual([...TRANSCRIBE_FAILURES].sort()));
  for (const kind of TRANSCRIBE_FAILURES) it(`${kind} → ${TABLE[kind]}`, () => expect(failureIsRetryable(kind)).toBe(TABLE[kind]));
});

describe('serviceWords', () => {
  const TABLE: [string, string, string | null][] = [
    [
      'OpenAI error shape',
      JSON.stringify({ error: { message: 'Incorrect API key provided: sk-x***', type: 'invalid_request_error', code: 'invalid_api_key' } }),
      'Incorrect API key provided: sk-x***',
    ],
    ['FastAPI detail', JSON.stringify({ detail: 'Model not found' }), 'Model not found'],
    ['plain text', 'upstream connect error\n', 'upstream connect error'],
    ['HTML page', '<html><body><h1>502 Bad Gateway</h1></body></html>', '502 Bad Gateway'],
    ['empty', '', null],
    ['JSON without words', '{}', '{}'],
    ['control characters', 'bad\u0007\u001bthing', 'bad thing'],
  ];
  for (const [name, body, words] of TABLE) it(name, () => expect(serviceWords(body)).toBe(words));
  it('cuts long words to 200 characters', () => {
    const w = serviceWords('x'.repeat(500));
    expect(w?.length).toBe(200);
    expect(w?.endsWith('…')).toBe(true);
  });
});

describe('decideVoiceNote, every state × event', () => {
  type Expected = VoiceNoteState | 'already_sent' | 'already_cancelled' | 'not_applicable';
  const TABLE: Record<VoiceNoteState, Record<VoiceNoteEvent, Expected>> = {
    transcribed: { send: 'sent', edit: 'editing', edited_text: 'not_applicable', cancel: 'cancelled', send_file: 'not_applicable' },
    editing: { send: 'sent', edit: 'not_applicable', edited_text: 'sent', cancel: 'cancelled', send_file: 'not_applicable' },
    sent: { send: 'already_sent', edit: 'already_sent', edited_text: 'already_sent', cancel: 'already_sent', send_file: 'already_sent' },
    cancelled: {
      send: 'already_cancelled',
      edit: 'already_cancelled',
      edited_text: 'already_cancelled',
      cancel: 'already_cancelled',
      send_file: 'already_cancelled',
    },
    failed: { send: 'not_applicable', edit: 'not_applicable', edited_text: 'not_applicable', cancel: 'cancelled', send_file: 'sent' },
    kept: { send: 'not_applicable', edit: 'not_applicable', edited_text: 'not_applicable', cancel: 'cancelled', send_file: 'sent' },
  };
  it('the table covers every state', () => expect(Object.keys(TABLE).sort()).toEqual([...VOICE_NOTE_STATES].sort()));
  for (const state of VOICE_NOTE_STATES) {
    for (const [event, expected] of Object.entries(TABLE[state]) as [VoiceNoteEvent, Expected][]) {
      it(`${state} + ${event} → ${expected}`, () => {
        const d = decideVoiceNote(state, event);
        expect(d).toEqual((VOICE_NOTE_STATES as readonly string[]).includes(expected) ? { ok: true, next: expected } : { ok: false, reason: expected });
      });
    }
  }
});
