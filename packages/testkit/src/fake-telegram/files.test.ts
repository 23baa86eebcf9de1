import { randomBytes } from 'node:crypto';
import { Api, type GrammyError, InputFile } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from './index.ts';
import { makePng } from './test-support.ts';

let fake: FakeTelegram;
let api: Api;
beforeEach(async () => {
  fake = await startFakeTelegram();
  api = new Api(fake.token, { apiRoot: fake.apiRoot });
});
afterEach(async () => {
  await fake.close();
});

async function download(filePath: string, token = fake.token): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(`${fake.apiRoot}/file/bot${token}/${filePath}`);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('files', () => {
  it('a user document downloads byte-exact through getFile', async () => {
    const bytes = randomBytes(300_000);
    const { message } = fake.userSendsDocument(bytes, 'build.log', 'text/plain', 'the log');
    expect(message.document).toMatchObject({ file_name: 'build.log', mime_type: 'text/plain', file_size: 300_000 });
    expect(message.caption).toBe('the log');
    const file = await api.getFile(message.document?.file_id ?? '');
    expect(file).toMatchObject({ file_unique_id: message.document?.file_unique_id, file_size: 300_000 });
    const got = await download(file.file_path ?? '');
    expect(got.status).toBe(200);
    expect(got.bytes.equals(bytes)).toBe(true);
    expect((await download(file.file_path ?? '', '7000000001:nope')).status).toBe(401);
    expect((await download('documents/missing.bin')).status).toBe(404);
    const bad = await api.getFile('nope').catch((e: unknown) => e);
    expect((bad as GrammyError).description).toBe('Bad Request: invalid file_id');
  });

  it('a user photo carries its real size', async () => {
    const png = makePng(33, 17);
    const { message } = fake.userSendsPhoto(png, 'screen');
    expect(message.photo).toEqual([expect.objectContaining({ width: 33, height: 17, file_size: png.length })]);
    const file = await api.getFile(message.photo?.[0]?.file_id ?? '');
    expect((await download(file.file_path ?? '')).bytes.equals(png)).toBe(true);
    expect(() => fake.userSendsPhoto(Buffer.from('not an image'))).toThrow();
  });

  it('bot uploads (multipart) are stored byte-exact and can be resent by file_id', async () => {
    const bytes = randomBytes(70_000);
    const sent = await api.sendDocument(fake.user.id, new InputFile(bytes, 'diff.patch'), { caption: '<b>patch</b>', parse_mode: 'HTML' });
    expect(sent.document).toMatchObject({ file_name: 'diff.patch', file_size: 70_000 });
    expect(sent.caption_entities).toEqual([{ type: 'bold', offset: 0, length: 5 }]);
    expect(fake.fileBytes(sent.document?.file_id ?? '')?.equals(bytes)).toBe(true);
    const file = await api.getFile(sent.document?.file_id ?? '');
    expect((await download(file.file_path ?? '')).bytes.equals(bytes)).toBe(true);
    const again = await api.sendDocument(fake.user.id, sent.document?.file_id ?? '');
    expect(again.document?.file_unique_id).toBe(sent.document?.file_unique_id);

    const photo = await api.sendPhoto(fake.user.id, new InputFile(makePng(8, 4)));
    expect(photo.photo?.[0]).toMatchObject({ width: 8, height: 4 });
    const notImage = await api.sendPhoto(fake.user.id, new InputFile(Buffer.from('text'))).catch((e: unknown) => e);
    expect((notImage as GrammyError).description).toBe('Bad Request: IMAGE_PROCESS_FAILED');
    const empty = await api.sendDocument(fake.user.id, new InputFile(Buffer.alloc(0), 'e.txt')).catch((e: unknown) => e);
    expect((empty as GrammyError).description).toBe('Bad Request: file must be non-empty');
    expect(fake.chatMessages().map((m) => (m.document ? 'document' : m.photo ? 'photo' : 'text'))).toEqual(['document', 'document', 'photo']);
  });

  it('accepts a standard multipart form with quoted filenames', async () => {
    const bytes = randomBytes(5_000);
    const form = new FormData();
    form.set('chat_id', String(fake.user.id));
    form.set('caption', 'from a form');
    form.set('document', new Blob([bytes], { type: 'application/x-custom' }), 'report final.bin');
    const res = await fetch(`${fake.apiRoot}/bot${fake.token}/sendDocument`, { method: 'POST', body: form });
    const body = (await res.json()) as { result: { caption: string; document: { file_id: string; file_name: string; mime_type: string } } };
    expect(body.result).toMatchObject({ caption: 'from a form', document: { file_name: 'report final.bin', mime_type: 'application/x-custom' } });
    expect(fake.fileBytes(body.result.document.file_id)?.equals(bytes)).toBe(true);
  });
});
