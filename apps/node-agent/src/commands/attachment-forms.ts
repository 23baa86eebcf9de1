// Which attachments a CLI gets as images and which as named paths. Pure: the executor, the sender's
// mime type and the file's first bytes decide (apps/node-agent/src/executors/README.md, "Images").
import type { Executor } from '@bria/core/protocol';

/** `image`: pasted alone so the CLI attaches it as an image; `path`: named in an `[Attached file: …]` line. */
export type AttachmentForm = 'image' | 'path';

/** The image types a CLI attaches from a pasted path, with the extension it is stored under and its signatures. */
const IMAGE_TYPES = {
  'image/png': { ext: '.png', magic: [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]] },
  'image/jpeg': { ext: '.jpg', magic: [[0xff, 0xd8, 0xff]] },
  'image/gif': { ext: '.gif', magic: [[...'GIF87a'].map((c) => c.charCodeAt(0)), [...'GIF89a'].map((c) => c.charCodeAt(0))] },
  // RIFF????WEBP: bytes 4–7 are the size, checked as "anything".
  'image/webp': { ext: '.webp', magic: [[0x52, 0x49, 0x46, 0x46, -1, -1, -1, -1, 0x57, 0x45, 0x42, 0x50]] },
} as const satisfies Record<string, { ext: string; magic: readonly (readonly number[])[] }>;

type ImageType = keyof typeof IMAGE_TYPES;

/**
 * Per CLI, whether a pasted image path becomes an image in the model request. Claude Code: yes, one
 * path per bracketed paste, spaces allowed. Codex: only for a path without spaces, and its receipt
 * form is not verified yet, so it keeps reading the named path itself (its `view_image` tool).
 */
export const PASTES_IMAGES = { claude: true, codex: false } as const satisfies Record<Executor, boolean>;

/** The sender's mime type, lower-cased and without parameters (`image/PNG; x=1` → `image/png`). */
function imageType(mime: string): ImageType | null {
  const m = mime.split(';')[0]!.trim().toLowerCase();
  return m in IMAGE_TYPES ? (m as ImageType) : null;
}

function startsWith(head: Uint8Array, magic: readonly number[]): boolean {
  return head.length >= magic.length && magic.every((b, i) => b < 0 || head[i] === b);
}

/** How one attachment reaches `executor`: an image only when the CLI takes images and the bytes are what the mime type says. */
export function attachmentForm(executor: Executor, mime: string, head: Uint8Array): AttachmentForm {
  if (!PASTES_IMAGES[executor]) return 'path';
  const t = imageType(mime);
  return t !== null && IMAGE_TYPES[t].magic.some((m) => startsWith(head, m)) ? 'image' : 'path';
}

/**
 * The file name an image is stored under: only `[A-Za-z0-9._-]` (nothing a CLI's path detection
 * could read as two paths or quoting) and ending in its type's extension, which the CLI goes by.
 */
export function imageFileName(name: string, mime: string): string {
  const ext = IMAGE_TYPES[imageType(mime) ?? 'image/png'].ext;
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_');
  const known = (ext === '.jpg' ? /\.jpe?g$/i : new RegExp(`\\${ext}$`, 'i')).exec(cleaned);
  const stem = (known ? cleaned.slice(0, known.index) : cleaned).replace(/^[._-]+/, '').slice(0, 100);
  return `${stem || 'image'}${known ? known[0] : ext}`;
}
