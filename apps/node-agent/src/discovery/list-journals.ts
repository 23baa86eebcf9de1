import { type Dirent, readdirSync, type Stats, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import type { Executor } from './session-types.ts';

// Finds candidate journal files and stats them; this is the whole cost of a re-scan when nothing
// changed. Sync calls (thousands of stats cost tens of milliseconds this way, several times less
// than through the promise API's thread pool), with `pause` between directories so the event
// loop still gets its turns.

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

export type Pause = () => Promise<void> | undefined;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const CLAUDE_FILE = new RegExp(`^(${UUID})\\.jsonl$`, 'i');
const CODEX_FILE = new RegExp(`^rollout-.*-(${UUID})\\.jsonl$`, 'i');
const CODEX_DIRS = [/^\d{4}$/, /^\d{2}$/, /^\d{2}$/];

export async function listJournals(claudeHome: string | null, codexHome: string | null, pause: Pause): Promise<JournalListing> {
  const out: JournalListing = { files: [], dirs: [] };
  if (claudeHome) {
    // Only `<uuid>.jsonl` directly in a project dir is a session; `memory/` and per-session
    // subagent folders are subdirectories and never descended into.
    for (const dir of subdirs(join(claudeHome, 'projects'), out, () => true)) {
      addFiles(out, 'claude', dir, CLAUDE_FILE);
      await pause();
    }
  }
  if (codexHome) {
    for (const year of subdirs(join(codexHome, 'sessions'), out, (n) => /^\d{4}$/.test(n))) {
      for (const month of subdirs(year, out, (n) => /^\d{2}$/.test(n))) {
        for (const day of subdirs(month, out, (n) => /^\d{2}$/.test(n))) {
          addFiles(out, 'codex', day, CODEX_FILE);
          await pause();
        }
      }
    }
  }
  return out;
}

/** Which journal a path is, if it is one by location and name (it may not exist). */
export function classifyJournal(claudeHome: string | null, codexHome: string | null, file: string): { executor: Executor; nativeId: string } | null {
  if (claudeHome) {
    const rel = relative(join(claudeHome, 'projects'), file).split(sep);
    const m = rel.length === 2 && rel[0] !== '..' ? CLAUDE_FILE.exec(rel[1] ?? '') : null;
    if (m?.[1]) return { executor: 'claude', nativeId: m[1].toLowerCase() };
  }
  if (codexHome) {
    const rel = relative(join(codexHome, 'sessions'), file).split(sep);
    const inDay = rel.length === 4 && CODEX_DIRS.every((re, i) => re.test(rel[i] ?? ''));
    const m = inDay ? CODEX_FILE.exec(basename(file)) : null;
    if (m?.[1]) return { executor: 'codex', nativeId: m[1].toLowerCase() };
  }
  return null;
}

export function statJournal(executor: Executor, nativeId: string, file: string): JournalFile | null {
  let st: Stats | undefined;
  try {
    st = statSync(file, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!st?.isFile()) return null;
  return { executor, nativeId, file, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
}

function subdirs(dir: string, out: JournalListing, accept: (name: string) => boolean): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  out.dirs.push(dir);
  return entries.filter((e) => e.isDirectory() && accept(e.name)).map((e) => join(dir, e.name));
}

function addFiles(out: JournalListing, executor: Executor, dir: string, pattern: RegExp): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  out.dirs.push(dir);
  for (const name of names) {
    const m = pattern.exec(name);
    const jf = m?.[1] ? statJournal(executor, m[1].toLowerCase(), join(dir, name)) : null;
    if (jf) out.files.push(jf);
  }
}
