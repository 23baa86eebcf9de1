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
 * Per CLI, which stored image paths become images in the model request when pasted alone. Claude
 * Code: any path. Codex: a path without whitespace (one with a space stays text in its composer).
 */
export const PASTES_IMAGES = {
  claude: () => true,
  codex: (file: string) => !/\s/.test(file),
} as const satisfies Record<Executor, (file: string) => boolean>;

/** The sender's mime type, lower-cased and without parameters (`image/PNG; x=1` → `image/png`). */
function imageType(mime: string): ImageType | null {
  const m = mime.split(';')[0]!.trim().toLowerCase();
  return m in IMAGE_TYPES ? (m as ImageType) : null;
}

function startsWith(head: Uint8Array, magic: readonly number[]): boolean {
  return head.length >= magic.length && magic.every((b, i) => b < 0 || head[i] === b);
}

/** How one attachment reaches `executor`: an image only when the bytes are what the mime type says (the stored path is checked apart, `imagePathTaken`). */
export function attachmentForm(mime: string, head: Uint8Array): AttachmentForm {
  const t = imageType(mime);
  return t !== null && IMAGE_TYPES[t].magic.some((m) => startsWith(head, m)) ? 'image' : 'path';
}

/** Whether `executor` attaches the image stored at `file` when its path is pasted. */
export function imagePathTaken(executor: Executor, file: string): boolean {
  return PASTES_IMAGES[executor](file);
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
