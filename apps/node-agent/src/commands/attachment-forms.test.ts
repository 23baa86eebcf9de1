import { describe, expect, it } from 'vitest';
import { solidPng } from '@bria/testkit/png';
import { attachmentForm, imageFileName, imagePathTaken } from './attachment-forms.ts';
import { messageForCli } from './session-attachments.ts';

const PNG = solidPng();
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const GIF = Buffer.from('GIF89a\u0001\u0000', 'latin1');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([1, 2, 3, 4]), Buffer.from('WEBPVP8 ')]);
const TEXT = Buffer.from('id,name\n');

describe('attachmentForm and imagePathTaken: which attachments a CLI gets as images', () => {
  it.each([
    { mime: 'image/png', bytes: PNG, what: 'png bytes', form: 'image' },
    { mime: 'IMAGE/PNG; charset=x', bytes: PNG, what: 'png bytes', form: 'image' },
    { mime: 'image/jpeg', bytes: JPEG, what: 'jpeg bytes', form: 'image' },
    { mime: 'image/gif', bytes: GIF, what: 'gif bytes', form: 'image' },
    { mime: 'image/webp', bytes: WEBP, what: 'webp bytes', form: 'image' },
    // The bytes must be what the mime type says: Claude would not attach them, and the text would be lost.
    { mime: 'image/png', bytes: JPEG, what: 'jpeg bytes', form: 'path' },
    { mime: 'image/png', bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]), what: 'a cut png signature', form: 'path' },
    { mime: 'image/png', bytes: Buffer.alloc(0), what: 'no bytes', form: 'path' },
    { mime: 'image/svg+xml', bytes: Buffer.from('<svg'), what: 'svg text', form: 'path' },
    { mime: 'image/heic', bytes: Buffer.alloc(16), what: 'zeros', form: 'path' },
    { mime: 'text/csv', bytes: TEXT, what: 'csv text', form: 'path' },
    { mime: 'application/octet-stream', bytes: PNG, what: 'png bytes', form: 'path' },
  ] as const)('$mime ($what) → $form', ({ mime, bytes, form }) => {
    expect(attachmentForm(mime, bytes)).toBe(form);
  });

  it.each([
    ['claude', '/home/u/.bria/attachments/s/m-a.png', true],
    ['claude', '/home/my user/.bria/attachments/s/m-a.png', true],
    ['codex', '/home/u/.bria/attachments/s/m-a.png', true],
    // Codex leaves a pasted path with whitespace as text: such an image is named as a path instead.
    ['codex', '/home/my user/.bria/attachments/s/m-a.png', false],
    ['codex', '/home/u/.bria\tx/attachments/s/m-a.png', false],
  ] as const)('%s takes the pasted image path %j: %s', (executor, file, taken) => {
    expect(imagePathTaken(executor, file)).toBe(taken);
  });
});

describe('imageFileName: a name the CLI reads as one image path', () => {
  it.each([
    ['screenshot.png', 'image/png', 'screenshot.png'],
    ['my screen shot.png', 'image/png', 'my_screen_shot.png'],
    ['photo.JPEG', 'image/jpeg', 'photo.JPEG'],
    ['photo.jpg', 'image/jpeg', 'photo.jpg'],
    ['photo', 'image/jpeg', 'photo.jpg'],
    ['pic.png', 'image/webp', 'pic.png.webp'],
    ["it's (1).gif", 'image/gif', 'it_s__1_.gif'],
    ['../../x.png', 'image/png', 'x.png'],
    ['日本.png', 'image/png', 'image.png'],
    ['', 'image/png', 'image.png'],
  ])('%j (%s) → %j', (name, mime, out) => {
    expect(imageFileName(name, mime)).toBe(out);
  });
});

describe('messageForCli', () => {
  const a = (name: string, mime: string) => ({ name, mime, sizeBytes: 2048, sha256: 'a'.repeat(64), contentBase64: '' });
  it('images go apart, in order; the other files stay lines after the caption', () => {
    const list = [a('x.png', 'image/png'), a('t.csv', 'text/csv'), a('y.png', 'image/png')];
    expect(messageForCli('look', ['/f/x.png', '/f/t.csv', '/f/y.png'], list, ['image', 'path', 'image'])).toEqual({
      text: 'look\n[Attached file: /f/t.csv (text/csv, 2 KB)]',
      images: ['/f/x.png', '/f/y.png'],
    });
  });
  it('without images it is the text as before', () => {
    expect(messageForCli('look', ['/f/x.png'], [a('x.png', 'image/png')], ['path'])).toEqual({
      text: 'look\n[Attached file: /f/x.png (image/png, 2 KB)]',
      images: [],
    });
    expect(messageForCli('', ['/f/x.png'], [a('x.png', 'image/png')], ['image'])).toEqual({ text: '', images: ['/f/x.png'] });
  });
});
