import { closeSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROMPT_MAX } from './claude-journal.ts';
import { clip, parseLine, str } from './line-bytes.ts';
import { scanLines } from './line-scanner.ts';

// Codex keeps thread titles in `$CODEX_HOME/session_index.jsonl`, one appended line per naming
// (`{"id","thread_name","updated_at"}`); the last line for an id wins. Read incrementally too.

export interface CodexTitles {
  ino: number;
  size: number;
  offset: number;
  titles: Record<string, string>;
}

export function emptyCodexTitles(): CodexTitles {
  return { ino: 0, size: 0, offset: 0, titles: {} };
}

/** Brings `t` up to date; returns the bytes read and whether anything changed. */
export function refreshCodexTitles(codexHome: string, t: CodexTitles, maxLineBytes: number): { bytesRead: number; changed: boolean } {
  const unchanged = { bytesRead: 0, changed: false };
  const file = join(codexHome, 'session_index.jsonl');
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st) {
    const had = t.size > 0 || Object.keys(t.titles).length > 0;
    Object.assign(t, emptyCodexTitles());
    return { bytesRead: 0, changed: had };
  }
  if (st.ino !== t.ino || st.size < t.offset) Object.assign(t, emptyCodexTitles(), { ino: st.ino });
  if (st.size === t.size) return unchanged;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return unchanged;
  }
  try {
    const result = scanLines(fd, t.offset, maxLineBytes, {
      line(buf, start, end) {
        const r = parseLine(buf, start, end);
        const id = r && str(r.id);
        const name = r && clip(str(r.thread_name), PROMPT_MAX);
        if (id && name) t.titles[id] = name;
      },
      hugeLine() {},
    });
    t.offset = result.consumedTo;
    t.size = st.size;
    return { bytesRead: result.bytesRead, changed: true };
  } finally {
    closeSync(fd);
  }
}
