import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Attachment, parseSessionCommand } from '@bria/core/protocol';
import { AttachmentNotStored, safeFileName, storeAttachments, textWithAttachments } from './session-attachments.ts';
import { scratchDir } from '@bria/testkit/scratch';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const att = (name: string, bytes: Buffer, over: Partial<Attachment> = {}): Attachment => ({
  name,
  mime: 'text/plain',
  sizeBytes: bytes.length,
  sha256: sha(bytes),
  contentBase64: bytes.toString('base64'),
  ...over,
});

describe('storeAttachments (real files)', () => {
  it('writes the bytes exactly into <dir>/attachments/<session>/<message>-<name>', async () => {
    const dir = scratchDir('bria-att-');
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13]);
    const [file] = await storeAttachments(path.join(dir, 'attachments'), 'sess-1', 'msg-1', [att('data.bin', bytes)]);
    expect(file).toBe(path.join(dir, 'attachments', 'sess-1', 'msg-1-data.bin'));
    expect(readFileSync(file!).equals(bytes)).toBe(true);
    expect(readdirSync(path.dirname(file!))).toEqual(['msg-1-data.bin']);
  });

  it('refuses a checksum or size that does not match, writing nothing', async () => {
    const dir = scratchDir('bria-att-');
    const bytes = Buffer.from('hello');
    await expect(
      storeAttachments(path.join(dir, 'attachments'), 's', 'm', [att('a.txt', bytes, { sha256: sha(Buffer.from('other')) })]),
    ).rejects.toBeInstanceOf(AttachmentNotStored);
    await expect(storeAttachments(path.join(dir, 'attachments'), 's', 'm', [att('a.txt', bytes, { sizeBytes: 4 })])).rejects.toThrow(/size differs/);
    expect(existsSync(path.join(dir, 'attachments'))).toBe(false);
  });

  it.each(['../../../etc/passwd', '..', '/abs/evil', 'a\\..\\b', '.hidden', 'x\u0000y\nz', '\u001b[31m'])(
    'keeps the hostile name %j inside the session folder',
    async (name) => {
      const dir = scratchDir('bria-att-');
      const [file] = await storeAttachments(path.join(dir, 'attachments'), 'sess', 'msg', [att(name, Buffer.from('x'))]);
      expect(path.dirname(file!)).toBe(path.join(dir, 'attachments', 'sess'));
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the name must contain no control character
      expect(path.basename(file!)).toMatch(/^msg-[^./\\\u0000-\u001f][^/\\\u0000-\u001f]*$/);
      expect(readdirSync(path.join(dir, 'attachments'))).toEqual(['sess']);
    },
  );

  it('names the file, its type and size on its own line after the caption', () => {
    const a = att('p.png', Buffer.alloc(12 * 1024), { mime: 'image/png\n/rm' });
    expect(textWithAttachments('look', ['/x/p.png'], [a])).toBe('look\n[Attached file: /x/p.png (image/png/rm, 12 KB)]');
    expect(safeFileName('...')).toBe('file');
  });

  it('the deliver payload refuses more than the stated limit', () => {
    const big = { name: 'a', mime: 'x', sizeBytes: 600 * 1024, sha256: 'a'.repeat(64), contentBase64: '' };
    expect(parseSessionCommand('deliver', { generation: 1, messageId: randomUUID(), text: 't', attachments: [big] }).ok).toBe(false);
  });
});
