import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { oggOpusSilence, readOggPages } from './ogg-opus.ts';
import { type FakeTranscribe, startFakeTranscribe } from './server.ts';

// The fake is talked to the way any client would: Node's fetch with a real multipart body.
let fake: FakeTranscribe | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function form(o: { bytes?: Uint8Array; model?: string; language?: string; format?: string; name?: string; type?: string }): FormData {
  const f = new FormData();
  if (o.bytes) f.append('file', new Blob([new Uint8Array(o.bytes)], { type: o.type ?? 'audio/ogg' }), o.name ?? 'voice.ogg');
  if (o.model !== undefined) f.append('model', o.model);
  if (o.language) f.append('language', o.language);
  if (o.format) f.append('response_format', o.format);
  return f;
}

const post = (url: string, body: FormData, key?: string) =>
  fetch(`${url}/audio/transcriptions`, { method: 'POST', body, headers: key ? { authorization: `Bearer ${key}` } : {} });

describe('fake transcription API', () => {
  it('parses the multipart upload, answers the text and logs every field', async () => {
    fake = await startFakeTranscribe({ behaviour: { type: 'text', text: 'ship it' } });
    const bytes = oggOpusSilence(300);
    const res = await post(fake.url, form({ bytes, model: 'whisper-1', language: 'en', format: 'json', name: 'note.ogg' }), 'sk-local');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ text: 'ship it' });
    const [r] = fake.requests();
    expect(r).toMatchObject({
      method: 'POST',
      path: '/v1/audio/transcriptions',
      apiKey: 'sk-local',
      fileName: 'note.ogg',
      mime: 'audio/ogg',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      model: 'whisper-1',
      language: 'en',
      responseFormat: 'json',
      status: 200,
    });
  });

  it('answers text and verbose_json as OpenAI does', async () => {
    fake = await startFakeTranscribe({ behaviour: { type: 'text', text: 'hello' } });
    const text = await post(fake.url, form({ bytes: Buffer.from('x'), model: 'whisper-1', format: 'text' }));
    expect(await text.text()).toBe('hello\n');
    const verbose = await post(fake.url, form({ bytes: Buffer.from('x'), model: 'whisper-1', format: 'verbose_json' }));
    expect(await verbose.json()).toMatchObject({ text: 'hello', segments: [] });
  });

  const REFUSALS: { name: string; body: () => FormData; key?: string; status: number; words: RegExp }[] = [
    { name: 'no file', body: () => form({ model: 'whisper-1' }), status: 400, words: /provide a 'file'/ },
    { name: 'no model', body: () => form({ bytes: Buffer.from('x') }), status: 400, words: /provide a 'model'/ },
    { name: 'unknown model', body: () => form({ bytes: Buffer.from('x'), model: 'whisper-9' }), status: 400, words: /whisper-9' does not exist/ },
    { name: 'bad format', body: () => form({ bytes: Buffer.from('x'), model: 'whisper-1', format: 'xml' }), status: 400, words: /response_format/ },
    { name: 'wrong key', body: () => form({ bytes: Buffer.from('x'), model: 'whisper-1' }), key: 'sk-wrong', status: 401, words: /Incorrect API key/ },
    { name: 'no key', body: () => form({ bytes: Buffer.from('x'), model: 'whisper-1' }), status: 401, words: /didn't provide an API key/ },
  ];
  for (const c of REFUSALS) {
    it(`refuses ${c.name} with ${c.status} in OpenAI's error shape`, async () => {
      fake = await startFakeTranscribe({ apiKey: c.key === undefined && c.status !== 401 ? undefined : 'sk-right' });
      const res = await post(fake.url, c.body(), c.key);
      expect(res.status).toBe(c.status);
      const body = (await res.json()) as { error: { message: string; type: string } };
      expect(body.error.message).toMatch(c.words);
      expect(body.error.type).toBe('invalid_request_error');
      expect(fake.requests()[0]?.status).toBe(c.status);
    });
  }

  for (const status of [401, 413, 429, 500, 503] as const) {
    it(`can be told to fail with ${status}`, async () => {
      fake = await startFakeTranscribe({ behaviour: { type: 'fail', status } });
      const res = await post(fake.url, form({ bytes: Buffer.from('x'), model: 'whisper-1' }));
      expect(res.status).toBe(status);
      const body = (await res.json()) as { error: { message: string; type: string; code: string | null } };
      expect(body.error.message.length).toBeGreaterThan(10);
      expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    });
  }

  it('hangs until the client gives up, and logs that it did', async () => {
    fake = await startFakeTranscribe({ behaviour: { type: 'hang' } });
    const done = post(fake.url, form({ bytes: Buffer.from('x'), model: 'whisper-1' }));
    const gaveUp = new AbortController();
    const aborted = fetch(`${fake.url}/audio/transcriptions`, {
      method: 'POST',
      body: form({ bytes: Buffer.from('y'), model: 'whisper-1' }),
      signal: gaveUp.signal,
    });
    await expect.poll(() => fake?.requests().length).toBe(2);
    gaveUp.abort();
    await expect(aborted).rejects.toThrow();
    const log = await fake.waitForRequests(1);
    expect(log.filter((r) => r.clientClosed)).toHaveLength(1);
    expect(log.every((r) => r.status === 0)).toBe(true);
    fake.behave({ type: 'text', text: 'later' });
    await fake.close();
    fake = undefined;
    await expect(done).rejects.toThrow();
  });

  it('answers 404 for another path', async () => {
    fake = await startFakeTranscribe();
    const res = await fetch(`${fake.url}/audio/translations`, { method: 'POST', body: form({ bytes: Buffer.from('x'), model: 'whisper-1' }) });
    expect(res.status).toBe(404);
  });
});

describe('the hand-written OGG/Opus file', () => {
  it('has OpusHead, OpusTags and 20 ms frames on CRC-correct pages', () => {
    const pages = readOggPages(oggOpusSilence(400));
    expect(pages.map((p) => p.crcOk)).toEqual([true, true, true]);
    expect(pages.map((p) => p.flags)).toEqual([0x02, 0, 0x04]);
    expect(pages[0]?.packets[0]?.subarray(0, 8).toString('latin1')).toBe('OpusHead');
    expect(pages[1]?.packets[0]?.subarray(0, 8).toString('latin1')).toBe('OpusTags');
    expect(pages[2]?.packets).toHaveLength(20);
    expect(pages[2]?.granule).toBe(312n + 20n * 960n);
  });

  it('a changed byte breaks its page CRC', () => {
    const bytes = oggOpusSilence(100);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
    expect(readOggPages(bytes).at(-1)?.crcOk).toBe(false);
  });
});
