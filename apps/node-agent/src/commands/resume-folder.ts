import { stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Why a resume cannot run in this folder, or null when it can. A CLI is reopened in the folder its
 * conversation ran in; without that folder tmux would start it somewhere else (its home), so the
 * resume is refused at once with the cause instead of being tried. Unlike a new session's folder
 * check, a path through a symbolic link is accepted: it is the folder the CLI itself recorded.
 */
export async function resumeFolderRefusal(folder: string): Promise<string | null> {
  if (!folder.trim()) return 'no folder is recorded for this session';
  if (!path.isAbsolute(folder)) return `the folder ${folder} is not an absolute path`;
  const st = await stat(folder).catch((err: NodeJS.ErrnoException) => err);
  if (st instanceof Error)
    return st.code === 'ENOENT' ? `the folder ${folder} does not exist on this computer` : `the folder ${folder} cannot be read (${st.code ?? 'error'})`;
  if (!st.isDirectory()) return `${folder} is a file, not a folder`;
  return null;
}
