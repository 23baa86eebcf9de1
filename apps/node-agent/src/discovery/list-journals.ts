import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Executor } from './session-types.ts';

// Finds candidate journal files and stats them; this is the whole cost of a re-scan when nothing
// changed. Sync calls: thousands of stats cost tens of milliseconds this way, several times less
// than through the promise API's thread pool.

export interface JournalFile {
  executor: Executor;
  nativeId: string;
  file: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

export interface JournalListing {
  files: JournalFile[];
  /** Directories that exist and hold journals (or will): what a watcher should watch. */
  dirs: string[];
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const CLAUDE_FILE = new RegExp(`^(${UUID})\\.jsonl$`, 'i');
const CODEX_FILE = new RegExp(`^rollout-.*-(${UUID})\\.jsonl$`, 'i');

export function listJournals(claudeHome: string | null, codexHome: string | null): JournalListing {
  const out: JournalListing = { files: [], dirs: [] };
  if (claudeHome) listClaude(claudeHome, out);
  if (codexHome) listCodex(codexHome, out);
  return out;
}

function listClaude(claudeHome: string, out: JournalListing): void {
  const projects = join(claudeHome, 'projects');
  const projectDirs = subdirs(projects, out, () => true);
  for (const dir of projectDirs) {
    // Only `<uuid>.jsonl` directly in a project dir is a session; `memory/` and per-session
    // subagent folders are subdirectories and never descended into.
    for (const name of names(dir, out)) {
      const m = CLAUDE_FILE.exec(name);
      if (m?.[1]) addFile(out, 'claude', m[1].toLowerCase(), join(dir, name));
    }
  }
}

function listCodex(codexHome: string, out: JournalListing): void {
  const sessions = join(codexHome, 'sessions');
  for (const year of subdirs(sessions, out, (n) => /^\d{4}$/.test(n))) {
    for (const month of subdirs(year, out, (n) => /^\d{2}$/.test(n))) {
      for (const day of subdirs(month, out, (n) => /^\d{2}$/.test(n))) {
        for (const name of names(day, out)) {
          const m = CODEX_FILE.exec(name);
          if (m?.[1]) addFile(out, 'codex', m[1].toLowerCase(), join(day, name));
        }
      }
    }
  }
}

function subdirs(dir: string, out: JournalListing, accept: (name: string) => boolean): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  out.dirs.push(dir);
  return entries.filter((e) => e.isDirectory() && accept(e.name)).map((e) => join(dir, e.name));
}

function names(dir: string, out: JournalListing): string[] {
  try {
    const list = readdirSync(dir);
    out.dirs.push(dir);
    return list;
  } catch {
    return [];
  }
}

function addFile(out: JournalListing, executor: Executor, nativeId: string, file: string): void {
  let st;
  try {
    st = statSync(file, { throwIfNoEntry: false });
  } catch {
    return;
  }
  if (!st?.isFile()) return;
  out.files.push({ executor, nativeId, file, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino });
}
