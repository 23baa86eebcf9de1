import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { replaceFileDurably } from './ledger/replace-file.ts';

/**
 * Crash-safe file writes for the agent's own state (ledger, session registry): what these return
 * from is on disk, and a crash leaves either the old or the new content, never a mix.
 */
export function writeFileAtomically(file: string, text: string): void {
  // One implementation for every state file: temp, fsync, rename, fsync of the folder (without the
  // last step a power cut may bring back the old file).
  replaceFileDurably(file, text);
}

/** Appends JSON lines and fsyncs them once; a crash mid-write leaves at most a torn last line. */
export function appendJsonLinesDurably(file: string, records: unknown[]): void {
  const fd = openSync(file, 'a', 0o600);
  try {
    writeSync(fd, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Appends one JSON line and fsyncs it. */
export function appendJsonLineDurably(file: string, record: unknown): void {
  appendJsonLinesDurably(file, [record]);
}
