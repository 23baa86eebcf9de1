import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { crashPoint } from '../test-crash.ts';

/**
 * Replaces a ledger file crash-safely: write a temp file, fsync it, rename it over the old one,
 * fsync the directory (so the rename itself survives a power cut). A crash at any point leaves
 * either the complete old file or the complete new one; a leftover temp file is removed at the next
 * start (`Ledger` constructor). `seam` names test crash points (`<seam>:tmp-partial`,
 * `<seam>:tmp-synced`, `<seam>:renamed`, see test-crash.ts); production never sets them.
 */
export function replaceFileDurably(file: string, text: string, seam?: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    if (seam && process.env.BRIA_AGENT_TEST_CRASH === `${seam}:tmp-partial`) {
      writeSync(fd, text.slice(0, Math.floor(text.length / 2)));
      fsyncSync(fd);
      crashPoint(`${seam}:tmp-partial`);
    }
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (seam) crashPoint(`${seam}:tmp-synced`);
  renameSync(tmp, file);
  if (seam) crashPoint(`${seam}:renamed`);
  fsyncDir(path.dirname(file));
}

export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
