import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Where the hook channel lives, and that nobody else can reach it (issue 30). The socket's folder
 * must be a real folder (not a symlink), owned by the agent's user, mode 0700, checked with `lstat`
 * after it was made: a folder another user made first (a predictable path in a shared /tmp) or a
 * symlink to theirs is refused, never used. No shared fallback: when no private place fits a Unix
 * socket path, remote answers are off on this computer and the CLIs get no hook settings.
 */

/** Unix socket paths are limited to 108 bytes on Linux (sun_path), including the final NUL. */
export const MAX_SOCKET_PATH = 107;
export const SOCKET_NAME = 'agent.sock';

/** Why the channel cannot be secured (machine code; the words are `REMOTE_ANSWERS_OFF_TEXT`). */
export type HooksOffReason = 'no_private_short_path' | 'folder_not_private' | 'listen_failed';
export const REMOTE_ANSWERS_OFF_TEXT: Record<HooksOffReason, string> = {
  no_private_short_path: "the agent's folder is too deep for a Unix socket and $XDG_RUNTIME_DIR is not set",
  folder_not_private: "the hooks folder is not the agent's own private folder (owner, mode 0700, not a symlink)",
  listen_failed: 'the hooks socket could not be opened',
};

export type FolderCheck = { ok: true } | { ok: false; detail: string };

/** lstat: a real folder, owned by `uid`, mode exactly 0700. */
export function checkPrivateFolder(dir: string, uid: number): FolderCheck {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(dir);
  } catch (err) {
    return { ok: false, detail: `cannot lstat ${dir}: ${(err as Error).message}` };
  }
  if (st.isSymbolicLink()) return { ok: false, detail: `${dir} is a symlink` };
  if (!st.isDirectory()) return { ok: false, detail: `${dir} is not a folder` };
  if (st.uid !== uid) return { ok: false, detail: `${dir} is owned by uid ${st.uid}, not ${uid}` };
  if ((st.mode & 0o777) !== 0o700) return { ok: false, detail: `${dir} has mode ${(st.mode & 0o777).toString(8)}, not 700` };
  return { ok: true };
}

/**
 * Makes `dir` (its parents as needed) and checks it. A folder of the agent's own user with a wider
 * mode is narrowed first (an older agent made it); anything else is refused as it is.
 */
export function securePrivateFolder(dir: string, uid: number = currentUid()): FolderCheck {
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return { ok: false, detail: `cannot make ${dir}: ${(err as Error).message}` };
  }
  try {
    const st = lstatSync(dir);
    if (st.isDirectory() && !st.isSymbolicLink() && st.uid === uid && (st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
  } catch {}
  return checkPrivateFolder(dir, uid);
}

export function currentUid(): number {
  return process.getuid?.() ?? -1;
}

/**
 * The socket's folder: `<agent dir>/hooks` when its socket path fits, else a folder of the agent in
 * `$XDG_RUNTIME_DIR` (per-user, 0700 by the login manager; named by a hash of the agent folder, so
 * a restarted agent finds its socket again), else none.
 */
export function socketFolder(o: { stateDir: string; runtimeDir?: string | undefined; agentDir: string }): string | null {
  if (Buffer.byteLength(path.join(o.stateDir, SOCKET_NAME)) <= MAX_SOCKET_PATH) return o.stateDir;
  if (!o.runtimeDir) return null;
  const dir = path.join(o.runtimeDir, `bria-${createHash('sha256').update(path.resolve(o.agentDir)).digest('hex').slice(0, 12)}`);
  return Buffer.byteLength(path.join(dir, SOCKET_NAME)) <= MAX_SOCKET_PATH ? dir : null;
}

/** The channel's folders, made and checked: its record's (`dir`) and its socket's; or why remote answers are off. */
export function secureChannelFolders(o: {
  dir: string;
  socketDir: string | null;
  socketPath: string;
}): { ok: true } | { ok: false; reason: HooksOffReason; detail: string } {
  const state = securePrivateFolder(o.dir);
  if (!state.ok) return { ok: false, reason: 'folder_not_private', detail: state.detail };
  if (o.socketDir === null || Buffer.byteLength(o.socketPath) > MAX_SOCKET_PATH)
    return { ok: false, reason: 'no_private_short_path', detail: `no private folder short enough for a Unix socket (${o.socketPath})` };
  const sock = o.socketDir === o.dir ? state : securePrivateFolder(o.socketDir);
  return sock.ok ? { ok: true } : { ok: false, reason: 'folder_not_private', detail: sock.detail };
}
