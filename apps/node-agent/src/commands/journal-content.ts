import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { JournalFiles } from './record-checks.ts';

/**
 * Records a CLI writes without any conversation: Claude Code may leave a journal holding only its
 * `mode` and `permission-mode` lines when it exits before the first prompt (seen with the real CLI
 * on close). Anything else — a user or assistant record, a Codex rollout's items, an unreadable or
 * unparsable line — counts as a conversation.
 */
const METADATA_ONLY = new Set(['mode', 'permission-mode']);
const MAX_BYTES = 64 * 1024;

/** Whether a journal file holds a conversation (true when in doubt: too large, unreadable, odd lines). */
export function journalHoldsConversation(file: string): boolean {
  try {
    if (statSync(file).size > MAX_BYTES) return true;
    const fd = openSync(file, 'r');
    const buf = Buffer.alloc(MAX_BYTES);
    const n = readSync(fd, buf, 0, MAX_BYTES, 0);
    closeSync(fd);
    for (const line of buf.subarray(0, n).toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      const rec = JSON.parse(line) as { type?: unknown };
      if (typeof rec.type !== 'string' || !METADATA_ONLY.has(rec.type)) return true;
    }
    return false;
  } catch {
    return true;
  }
}

/** The record checks' view of journal files, answered from the disk. */
export const journalFilesOnDisk: JournalFiles = { exists: existsSync, holdsConversation: journalHoldsConversation };
