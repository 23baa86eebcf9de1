import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeTranscribe, oggOpusSilence, startFakeTranscribe } from '../../../../testkit/src/fake-transcribe/index.ts';
import type { TranscribeConfig } from '../../env.ts';
import { transcribeAudio } from './transcribe-audio.ts';

let fake: FakeTranscribe | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const audio = oggOpusSilence(300);
const input = { bytes: audio, fileName: 'voice-1.ogg', mimeType: 'audio/ogg' };
const config = (url: string, more: Partial<TranscribeConfig> = {}): TranscribeConfig => ({ baseUrl: url, model: 'whisper-1', timeoutMs: 5000, ...more });

describe('transcribeAudio against the fake OpenAI-compatible API', () => {
  it('uploads the file, model, language and response_format=json, and returns the text', async () => {
    fake = await startFakeTranscribe({ apiKey: 'sk-test-1', behaviour: { type: 'text', text: '  Fix the failing test.  ' } });
    const r = await transcribeAudio(config(fake.url, { apiKey: 'sk-test-1', language: 'en', model: 'gpt-4o-mini-transcribe' }), input);
    expect(r).toEqual({ ok: true, text: 'Fix the failing test.' });
    const [req] = fake.requests();
    expect(req).toMatchObject({
      apiKey: 'sk-test-1',
      fileName: 'voice-1.ogg',
      mime: 'audio/ogg',
      size: audio.length,
      sha256: createHash('sha256').update(audio).digest('hex'),
      model: 'gpt-4o-mini-transcribe',
      language: 'en',
      responseFormat: 'json',
    });
  });

  it('sends no key and no language when none is configured (a local server)', async () => {
    fake = await startFakeTranscribe();
    const r = await transcribeAudio(config(fake.url), input);
    expect(r.ok).toBe(true);
    expect(fake.requests()[0]).toMatchObject({ apiKey: null, language: null });
  });

  const FAILS = [
    { status: 401, failure: 'key_refused', words: /Incorrect API key/ },
    { status: 413, failure: 'too_large', words: /Maximum content size/ },
    { status: 429, failure: 'rate_limited', words: /Rate limit reached/ },
    { status: 500, failure: 'service_error', words: /had an error/ },
    { status: 503, failure: 'service_error', words: /overloaded/ },
  ] as const;
  for (const f of FAILS) {
    it(`${f.status} → ${f.failure}, with the service's own words`, async () => {
      fake = await startFakeTranscribe({ behaviour: { type: 'fail', status: f.status } });
      const r = await transcribeAudio(config(fake.url), input);
      expect(r).toMatchObject({ ok: false, failure: f.failure, status: f.status });
      expect(r.ok ? '' : r.words).toMatch(f.words);
    });
  }

  it('a model the service does not have is a refusal in its words', async () => {
    fake = await startFakeTranscribe();
    const r = await transcribeAudio(config(fake.url, { model: 'whisper-9' }), input);
    expect(r).toMatchObject({ ok: false, failure: 'refused', status: 400, words: "The model 'whisper-9' does not exist" });
  });

  it('gives up after the timeout on a service that hangs', async () => {
    fake = await startFakeTranscribe({ behaviour: { type: 'hang' } });
    const started = Date.now();
    const r = await transcribeAudio(config(fake.url, { timeoutMs: 1000 }), input);
    expect(r).toEqual({ ok: false, failure: 'timeout' });
    expect(Date.now() - started).toBeLessThan(4000);
    const [req] = await fake.waitForRequests(1);
    expect(req?.clientClosed).toBe(true);
  });

  it('refuses a file over 25 MB before uploading anything', async () => {
    fake = await startFakeTranscribe();
    const r = await transcribeAudio(config(fake.url), { ...input, bytes: new Uint8Array(25 * 1024 * 1024 + 1) });
    expect(r).toEqual({ ok: false, failure: 'too_large' });
    expect(fake.requests()).toHaveLength(0);
  });

  it('a refused connection is unreachable, naming the reason', async () => {
    // A port that was just free: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await transcribeAudio(config(`http://127.0.0.1:${port}/v1`), input);
    expect(r).toEqual({ ok: false, failure: 'unreachable', words: 'ECONNREFUSED' });
  });

  it('an empty transcript (silence) is no speech', async () => {
    fake = await startFakeTranscribe({ behaviour: { type: 'text', text: ' ' } });
    expect(await transcribeAudio(config(fake.url), input)).toEqual({ ok: false, failure: 'no_speech', status: 200 });
  });

  it('a 200 that is not the documented JSON is a bad answer', async () => {
    const server = createServer((sock) => {
      sock.once('data', () => sock.end('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 13\r\nconnection: close\r\n\r\n<p>login</p>\n'));
    });
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    try {
      const r = await transcribeAudio(config(`http://127.0.0.1:${port}/v1`), input);
      expect(r).toMatchObject({ ok: false, failure: 'bad_answer', words: 'login' });
    } finally {
      server.close();
    }
  });
});
