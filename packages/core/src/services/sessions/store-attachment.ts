import { createHash } from 'node:crypto';
import { mkdir, open, rename } from 'node:fs/promises';
import path from 'node:path';
import type { StoredAttachment } from '../../engine/step/carry-attachments.ts';

/** A file name safe on any disk: no folders, no control characters, at most 120 characters. */
export function safeAttachmentName(name: string): string {
  const base = path.basename(name);
  let clean = '';
  // Control characters and separators become "_" (a code-point test: no control characters in a regex).
  for (const ch of base) clean += ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f || ch === '/' || ch === '\\' ? '_' : ch;
  clean = clean.trim();
  return (clean === '' || clean === '.' || clean === '..' ? 'file' : clean).slice(-120);
}

/**
 * Stores an attachment of a message before it is queued (the dashboard's upload and Telegram's
 * download take this one path): under `<dir>/<session>/`, named by its SHA-256 and its name, mode
 * 0600, written to a temporary file, synced and renamed, so a crash never leaves half a file
 * under the final name. The hub reads it back and checks the hash before it goes to the node.
 */
export async function storeAttachmentFile(
  dir: string,
  sessionId: string,
  a: { fileName: string; mimeType: string; bytes: Uint8Array },
): Promise<StoredAttachment> {
  const sha256 = createHash('sha256').update(a.bytes).digest('hex');
  const folder = path.join(dir, sessionId);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const name = safeAttachmentName(a.fileName);
  const final = path.join(folder, `${sha256}-${name}`);
  const tmp = `${final}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(a.bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, final);
  return { name, mime: a.mimeType, path: final, sizeBytes: a.bytes.length, sha256 };
}
