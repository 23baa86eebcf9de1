import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';

/**
 * Crash-safe file writes for the agent's own state (ledger, session registry): what these return
 * from is on disk, and a crash leaves either the old or the new content, never a mix.
 */
export function writeFileAtomically(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** Appends one JSON line and fsyncs it; a crash mid-write leaves at most a torn last line. */
export function appendJsonLineDurably(file: string, record: unknown): void {
  const fd = openSync(file, 'a', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(record)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
