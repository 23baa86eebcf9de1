import { createHash } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Attachment } from '@bria/core/protocol';
import { type AttachmentForm, imageFileName } from './attachment-forms.ts';

/** An attachment the agent could not write and verify: the delivery is refused before anything is typed. */
export class AttachmentNotStored extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'AttachmentNotStored';
  }
}

/** A file name reduced to one harmless path segment: no separators, control characters or leading dots. */
export function safeFileName(name: string): string {
  const cleaned = name
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
    .replace(/[\u0000-\u001f\u007f/\\]/g, '_')
    .replace(/^[.\s]+/, '')
    .trim()
    .slice(0, 120);
  return cleaned.length > 0 ? cleaned : 'file';
}

/**
 * Writes a message's attachments into the session's Bria-owned folder under `root`
 * (`<root>/<sessionId>/<messageId>-<safe name>`), each checked against the size and
 * SHA-256 the hub sent and renamed into place only once complete. An attachment whose form is
 * `image` gets a name the CLI reads as an image (`imageFileName`). Returns the absolute paths.
 */
export async function storeAttachments(
  root: string,
  sessionId: string,
  messageId: string,
  list: readonly Attachment[],
  forms: readonly AttachmentForm[] = [],
): Promise<string[]> {
  const folder = path.resolve(root, safeFileName(sessionId));
  const paths: string[] = [];
  for (const [i, a] of list.entries()) {
    const bytes = Buffer.from(a.contentBase64, 'base64');
    if (bytes.length !== a.sizeBytes) throw new AttachmentNotStored(`size differs (${bytes.length} != ${a.sizeBytes})`);
    if (createHash('sha256').update(bytes).digest('hex') !== a.sha256) throw new AttachmentNotStored('checksum differs');
    // Two attachments of one message may share a name: the second gets its index in front.
    const name = forms[i] === 'image' ? imageFileName(a.name, a.mime) : safeFileName(a.name);
    const final = path.join(folder, `${safeFileName(messageId)}-${i === 0 ? '' : `${i}-`}${name}`);
    if (path.dirname(final) !== folder) throw new AttachmentNotStored('unsafe file name');
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      const tmp = `${final}.${process.pid}.tmp`;
      const fh = await open(tmp, 'w', 0o600);
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, final).catch(async (err: unknown) => {
        await rm(tmp, { force: true });
        throw err;
      });
    } catch (err) {
      throw new AttachmentNotStored(`write failed (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    paths.push(final);
  }
  return paths;
}

/** The line the CLI reads for one stored attachment, after the user's own text. */
export function attachmentLine(file: string, a: Pick<Attachment, 'mime' | 'sizeBytes'>): string {
  const size = a.sizeBytes < 1024 ? `${a.sizeBytes} B` : `${Math.round(a.sizeBytes / 1024)} KB`;
  // The mime type comes from the sender: it must not add lines or keys to what the CLI reads.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
  const mime = a.mime.replace(/[\u0000-\u001f\u007f()\]]/g, '').slice(0, 100) || 'application/octet-stream';
  return `[Attached file: ${file} (${mime}, ${size})]`;
}

/** The text typed into the CLI: the caption, then one line per attachment. */
export function textWithAttachments(text: string, files: readonly string[], list: readonly Attachment[]): string {
  const lines = files.map((f, i) => attachmentLine(f, list[i]!));
  return [text, ...lines].filter((l) => l.length > 0).join('\n');
}

/**
 * What is typed for a message: the image files (each pasted alone, so the CLI attaches it) and the
 * text, the caption followed by one line per attachment that stays a path.
 */
export function messageForCli(
  text: string,
  files: readonly string[],
  list: readonly Attachment[],
  forms: readonly AttachmentForm[],
): { text: string; images: string[] } {
  const paths = files.flatMap((f, i) => (forms[i] === 'image' ? [] : [{ f, a: list[i]! }]));
  return {
    text: textWithAttachments(
      text,
      paths.map((p) => p.f),
      paths.map((p) => p.a),
    ),
    images: files.filter((_, i) => forms[i] === 'image'),
  };
}
