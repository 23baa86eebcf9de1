'use client';
import { useEffect, useMemo } from 'react';
import { useI18n } from './i18n-context.tsx';

/** What the protocol carries with one message (bytes of all files together); the server checks it again. */
export const MAX_FILES_BYTES = 512 * 1024;
export const MAX_FILES = 4;

export interface PickedFile {
  key: string;
  file: File;
}

/** The files' base64, for `sessions.sendMessage({ attachments })`. */
export async function encodeFiles(files: readonly PickedFile[]): Promise<{ name: string; mime: string; base64: string }[]> {
  return Promise.all(
    files.map(async ({ file }) => {
      const bytes = new Uint8Array(await file.arrayBuffer());
      let bin = '';
      for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      // A recorder's type carries parameters ("audio/webm;codecs=opus"): the bare type is what is kept.
      const type = file.type.split(';')[0]?.trim() ?? '';
      return { name: file.name || 'pasted', mime: /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : 'application/octet-stream', base64: btoa(bin) };
    }),
  );
}

/** Why these files cannot go, or null. */
export function filesRefusal(files: readonly PickedFile[]): 'too_many' | 'too_big' | null {
  if (files.length > MAX_FILES) return 'too_many';
  return files.reduce((n, f) => n + f.file.size, 0) > MAX_FILES_BYTES ? 'too_big' : null;
}

/** The composer's files: an image as a thumbnail, anything else as its name and size, each removable. */
export function ComposerFiles({ files, onRemove }: { files: readonly PickedFile[]; onRemove: (key: string) => void }) {
  const { t } = useI18n();
  const urls = useMemo(() => new Map(files.filter((f) => f.file.type.startsWith('image/')).map((f) => [f.key, URL.createObjectURL(f.file)])), [files]);
  useEffect(
    () => () => {
      for (const u of urls.values()) URL.revokeObjectURL(u);
    },
    [urls],
  );
  if (files.length === 0) return null;
  return (
    <ul className="composer-files" data-testid="composer-files">
      {files.map((f) => (
        <li key={f.key} data-testid="composer-file">
          {urls.get(f.key) ? <img src={urls.get(f.key)} alt={f.file.name} /> : <span className="mono small">{f.file.name}</span>}
          <span className="muted small">{Math.max(1, Math.round(f.file.size / 1024))} KB</span>
          <button type="button" className="btn btn-small" onClick={() => onRemove(f.key)} aria-label={t('send.removeFile', { name: f.file.name })}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
