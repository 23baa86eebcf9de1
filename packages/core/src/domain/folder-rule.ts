/**
 * A session's folder is an absolute path on its computer (the CLI starts there; it is part of the
 * session's identity: recent folders, resume matches, the CLI's project key). The dashboard checks
 * this part before it asks; `folderRefusal` is the whole rule `createSession` applies.
 */
export function isAbsoluteFolder(folder: string): boolean {
  return folder.startsWith('/');
}

export const MAX_FOLDER_LENGTH = 4096;

/** Why a (trimmed) folder cannot be a session's, in the words the service refuses it with; null when it can. */
export function folderRefusal(folder: string): string | null {
  if (!isAbsoluteFolder(folder) || folder.length > MAX_FOLDER_LENGTH) return 'folder must be an absolute path';
  // `/a/../b` and `/b` must not be two folders, and control characters never belong in one.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  if (/[\u0000-\u001f\u007f]/.test(folder)) return 'folder must not contain control characters';
  if (folder.split('/').some((seg) => seg === '.' || seg === '..')) return 'folder must not contain . or .. segments';
  return null;
}
