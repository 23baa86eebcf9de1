import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CommandFailureCode } from '@bria/core/protocol';

export type FolderCheck =
  | { ok: true; folder: string }
  | { ok: false; code: Extract<CommandFailureCode, 'not_absolute' | 'folder_missing' | 'unreadable' | 'not_a_folder' | 'symlink'>; reason: string };

/**
 * Whether a working folder may be used: absolute, existing, a directory, named by its real path.
 * A path through a symlink is refused with the real path named, so the user picks that one.
 */
export async function validateFolder(folder: string): Promise<FolderCheck> {
  if (!path.isAbsolute(folder)) return { ok: false, code: 'not_absolute', reason: 'The folder must be an absolute path (starting with /).' };
  if (folder.includes('\0')) return { ok: false, code: 'not_absolute', reason: 'The folder name contains a NUL byte.' };
  const normal = path.resolve(folder);
  const st = await stat(normal).catch((err: NodeJS.ErrnoException) => err);
  if (st instanceof Error) {
    return st.code === 'ENOENT'
      ? { ok: false, code: 'folder_missing', reason: 'The folder does not exist on this computer.' }
      : { ok: false, code: 'unreadable', reason: `The folder cannot be read (${st.code ?? 'error'}).` };
  }
  if (!st.isDirectory()) return { ok: false, code: 'not_a_folder', reason: 'This path is a file, not a folder.' };
  const real = await realpath(normal);
  // Any symlink on the way makes the session work somewhere else than the path the user picked.
  if (real !== normal) return { ok: false, code: 'symlink', reason: `The path goes through a symbolic link to ${real}; pick the real folder instead.` };
  return { ok: true, folder: real };
}
