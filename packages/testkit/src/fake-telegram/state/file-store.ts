import { randomBytes } from 'node:crypto';
import type { File } from '@grammyjs/types';
import { ApiError } from '../api-error.ts';

export type FileKind = 'document' | 'photo';

export interface StoredFile {
  fileId: string;
  uniqueId: string;
  kind: FileKind;
  path: string;
  bytes: Buffer;
  fileName?: string;
  mimeType?: string;
}

// Bots may download files up to 20 MB through getFile.
const DOWNLOAD_LIMIT = 20 * 1024 * 1024;

const MIME_BY_EXT: Record<string, string> = {
  txt: 'text/plain',
  md: 'text/markdown',
  json: 'application/json',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  zip: 'application/zip',
  csv: 'text/csv',
  html: 'text/html',
  log: 'text/plain',
  ts: 'video/mp2t',
  js: 'application/javascript',
  mp4: 'video/mp4',
  ogg: 'audio/ogg',
  mp3: 'audio/mpeg',
};

export function mimeFromName(fileName: string): string | undefined {
  const ext = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase();
  return ext ? MIME_BY_EXT[ext] : undefined;
}

/** Files known to the fake: uploaded by the bot or sent by a simulated user. */
export class FileStore {
  private readonly byId = new Map<string, StoredFile>();
  private readonly byPath = new Map<string, StoredFile>();
  private counter = 0;

  /** `place`: the folder and extension Telegram files this media under (voice notes: `voice/…oga`). */
  add(opts: { kind: FileKind; bytes: Buffer; fileName?: string; mimeType?: string; place?: { folder: string; ext: string } }): StoredFile {
    const n = this.counter++;
    const ext = opts.place?.ext ?? (opts.kind === 'photo' ? 'jpg' : (/\.([A-Za-z0-9]+)$/.exec(opts.fileName ?? '')?.[1] ?? ''));
    const folder = opts.place?.folder ?? (opts.kind === 'photo' ? 'photos' : 'documents');
    const prefix = opts.kind === 'photo' ? 'AgACAgIAAxkBAAI' : 'BQACAgIAAxkBAAI';
    const file: StoredFile = {
      fileId: `${prefix}${randomBytes(48).toString('base64url')}`,
      uniqueId: `AQAD${randomBytes(9).toString('base64url')}`,
      kind: opts.kind,
      path: `${folder}/file_${n}${ext ? `.${ext}` : ''}`,
      bytes: Buffer.from(opts.bytes),
    };
    if (opts.fileName !== undefined) file.fileName = opts.fileName;
    if (opts.mimeType !== undefined) file.mimeType = opts.mimeType;
    this.byId.set(file.fileId, file);
    this.byPath.set(file.path, file);
    return file;
  }

  get(fileId: string): StoredFile | undefined {
    return this.byId.get(fileId);
  }

  /** getFile: the File object a bot gets, with file_path only for downloadable sizes. */
  describe(fileId: string | undefined): File {
    const file = fileId ? this.byId.get(fileId) : undefined;
    if (!file) throw ApiError.badRequest('invalid file_id');
    if (file.bytes.length > DOWNLOAD_LIMIT) throw ApiError.badRequest('file is too big');
    return { file_id: file.fileId, file_unique_id: file.uniqueId, file_size: file.bytes.length, file_path: file.path };
  }

  byFilePath(path: string): StoredFile | undefined {
    return this.byPath.get(path);
  }
}
