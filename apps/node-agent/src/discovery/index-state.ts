import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ClaudeFields } from './claude-journal.ts';
import type { CodexFields } from './codex-rollout.ts';
import { type CodexTitles, emptyCodexTitles } from './codex-titles.ts';
import type { Executor } from './session-types.ts';

// The persisted form of the discovery index: per journal what was read and what was extracted,
// so a restarted agent resumes reading where it stopped instead of re-reading every journal.

export const STATE_FILE = 'discovery-index.json';
const VERSION = 1;

export interface FileEntry {
  executor: Executor;
  nativeId: string;
  size: number;
  mtimeMs: number;
  ino: number;
  /** Bytes consumed: the end of the last complete line read. */
  offset: number;
  /** Base64 of the bytes just before `offset`; a mismatch means the file was rewritten. */
  tailCheck: string;
  malformed: number;
  huge: number;
  partialTail: boolean;
  unreadable: string | null;
  fields: ClaudeFields | CodexFields;
}

export interface IndexState {
  version: number;
  claudeHome: string | null;
  codexHome: string | null;
  files: Record<string, FileEntry>;
  codexTitles: CodexTitles;
}

export function emptyState(claudeHome: string | null, codexHome: string | null): IndexState {
  return { version: VERSION, claudeHome, codexHome, files: {}, codexTitles: emptyCodexTitles() };
}

/** Loads the state for these homes; anything missing, corrupt, old or for other homes starts empty. */
export function loadState(dir: string, claudeHome: string | null, codexHome: string | null): IndexState {
  try {
    const raw = JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')) as Partial<IndexState>;
    if (
      raw.version === VERSION &&
      raw.claudeHome === claudeHome &&
      raw.codexHome === codexHome &&
      raw.files !== null &&
      typeof raw.files === 'object' &&
      raw.codexTitles !== null &&
      typeof raw.codexTitles === 'object'
    ) {
      return raw as IndexState;
    }
  } catch {
    // A missing or damaged state file only costs one full scan.
  }
  return emptyState(claudeHome, codexHome);
}

/**
 * Atomic replace: a crash leaves either the old or the new state file, never a torn one. Written
 * entry by entry so thousands of sessions never become one large string in memory.
 */
export function saveState(dir: string, state: IndexState): void {
  mkdirSync(dir, { recursive: true });
  const target = join(dir, STATE_FILE);
  const temp = `${target}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    let pending = '';
    const put = (text: string) => {
      pending += text;
      if (pending.length > 1 << 16) {
        writeSync(fd, pending);
        pending = '';
      }
    };
    const { files, ...rest } = state;
    put(`${JSON.stringify(rest).slice(0, -1)},"files":{`);
    let first = true;
    for (const [file, entry] of Object.entries(files)) {
      put(`${first ? '' : ','}${JSON.stringify(file)}:${JSON.stringify(entry)}`);
      first = false;
    }
    put('}}');
    writeSync(fd, pending);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
}
