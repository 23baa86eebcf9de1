import { readFileSync } from 'node:fs';
import type { JournalLine } from './jsonl-tailer.ts';

/** Splits a whole journal file into lines with byte offsets, like the tailer does. For tests. */
export function linesOf(path: string): JournalLine[] {
  const buf = readFileSync(path);
  const out: JournalLine[] = [];
  let start = 0;
  for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, start)) {
    out.push({ offset: start, end: nl + 1, text: buf.subarray(start, nl).toString('utf8') });
    start = nl + 1;
  }
  return out;
}
