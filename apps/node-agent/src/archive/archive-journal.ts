import { mkdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Executor } from '@bria/core/protocol';
import { atomicCopy, type CopyResult, hashFile } from './atomic-copy.ts';

// The CLIs prune their own journals (Claude removes those older than about 30 days by default),
// so Bria keeps its own copy of every closed session's journal: exact resume then works as long
// as Bria has the copy, whatever the CLI cleaned up.

export type ArchiveExecutor = Executor;

export type ArchiveErrorCode = 'invalid_id' | 'checksum_mismatch' | 'target_exists';

export class ArchiveError extends Error {
  constructor(
    readonly code: ArchiveErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ArchiveError';
  }
}

export interface ArchivedJournal {
  path: string;
  sizeBytes: number;
  sha256: string;
}

// Native ids end up in a path: allow only what the CLIs produce (UUIDs), never separators or dots.
const NATIVE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function archivePath(dataDir: string, executor: ArchiveExecutor, nativeId: string): string {
  if (!NATIVE_ID.test(nativeId)) throw new ArchiveError('invalid_id', 'native session id is not a plain id');
  if (executor !== 'claude' && executor !== 'codex') throw new ArchiveError('invalid_id', 'unknown executor');
  return join(dataDir, 'journals', executor, `${nativeId}.jsonl`);
}

/** Copies a closed session's native journal into Bria's data folder, replacing an older copy. */
export async function archiveJournal(options: { file: string; executor: ArchiveExecutor; nativeId: string; dataDir: string }): Promise<ArchivedJournal> {
  const path = archivePath(options.dataDir, options.executor, options.nativeId);
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  const copy = await atomicCopy(options.file, path, { noClobber: false });
  return { path, ...copy };
}

export interface RestoreResult {
  /** False when the target already held exactly this journal. */
  restored: boolean;
  targetPath: string;
}

/**
 * Puts an archived journal back where the CLI looks for it, before an exact resume. Checks the
 * archive against the checksum recorded at archive time, never replaces a different existing
 * file (the CLI's own copy may be newer), and verifies the restored bytes.
 */
export async function restoreJournal(options: { archived: string; targetPath: string; sha256: string }): Promise<RestoreResult> {
  const source = await hashFile(options.archived);
  if (source.sha256 !== options.sha256) {
    throw new ArchiveError('checksum_mismatch', 'archived journal does not match its recorded checksum');
  }
  const existing = await stat(options.targetPath).catch(() => null);
  if (existing) {
    const current = await hashFile(options.targetPath);
    if (current.sha256 === options.sha256) return { restored: false, targetPath: options.targetPath };
    throw new ArchiveError('target_exists', 'a different journal already exists at the target path');
  }
  await mkdir(join(options.targetPath, '..'), { recursive: true });
  let copy: CopyResult;
  try {
    copy = await atomicCopy(options.archived, options.targetPath, { noClobber: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ArchiveError('target_exists', 'a journal appeared at the target path during restore');
    }
    throw error;
  }
  if (copy.sha256 !== options.sha256) {
    // The archive changed while being copied; leave no wrong journal behind for the CLI.
    await unlink(options.targetPath).catch(() => {});
    throw new ArchiveError('checksum_mismatch', 'restored journal does not match the recorded checksum');
  }
  return { restored: true, targetPath: options.targetPath };
}
