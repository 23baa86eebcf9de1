// Byte-level helpers that let the parsers decide what a journal line is without JSON-parsing it.
// Most journal bytes are model output and tool results that discovery never needs, so only the
// few interesting lines are parsed; the rest are classified from a window at each end, where the
// top-level fields of a record sit around its large nested payload.

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/** Bytes inspected at each end of a long line. */
export const WINDOW = 4096;

export function marker(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/**
 * The two end windows of the current line (the whole line when short). One instance is reused
 * for every line: a journal scan touches millions of lines, and per-check slices were the main
 * source of garbage (and so of young-generation growth and RSS).
 */
export class LineWindows {
  head: Buffer = Buffer.alloc(0);
  tail: Buffer = this.head;
  long = false;

  set(buf: Buffer, start: number, end: number): this {
    this.long = end - start > 2 * WINDOW;
    this.head = buf.subarray(start, this.long ? start + WINDOW : end);
    this.tail = this.long ? buf.subarray(end - WINDOW, end) : this.head;
    return this;
  }

  has(needle: Buffer): boolean {
    return this.head.indexOf(needle) !== -1 || (this.long && this.tail.indexOf(needle) !== -1);
  }
}

const TYPE_KEY = Buffer.from('"type":"');

/**
 * Position just after the next `"type":"` in `b` from `from`, or -1. Records put their own type
 * before their payload, so walking these from the line start reads a record's type (and its
 * payload's type) without searching the whole line for every marker.
 */
export function nextType(b: Buffer, from: number): number {
  const at = b.indexOf(TYPE_KEY, from);
  return at === -1 ? -1 : at + TYPE_KEY.length;
}

/** Whether the JSON string value starting at `at` is exactly `value`. */
export function valueIs(b: Buffer, at: number, value: Buffer): boolean {
  if (at < 0 || at + value.length >= b.length || b[at + value.length] !== QUOTE) return false;
  for (let i = 0; i < value.length; i++) if (b[at + i] !== value[i]) return false;
  return true;
}

/** The JSON string value after the first (or last) `"key":"` (given as `needle`) in `b`. */
export function stringField(b: Buffer, needle: Buffer, last: boolean): string | null {
  const at = last ? b.lastIndexOf(needle) : b.indexOf(needle);
  if (at === -1) return null;
  const open = at + needle.length - 1; // the opening quote is the needle's last byte
  let escaped = false;
  for (let i = open + 1; i < b.length; i++) {
    const c = b[i];
    if (c === BACKSLASH) {
      escaped = true;
      i++;
    } else if (c === QUOTE) {
      if (!escaped) return b.toString('utf8', open + 1, i);
      try {
        return JSON.parse(b.toString('utf8', open, i + 1)) as string;
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** A cheap shape check for lines that are not parsed: a record starts with `{` and ends with `}`. */
export function looksLikeObject(buf: Buffer, start: number, end: number): boolean {
  let last = end - 1;
  while (last > start && (buf[last] === 13 || buf[last] === 32)) last--;
  return buf[start] === OPEN_BRACE && buf[last] === CLOSE_BRACE;
}

export function parseLine(buf: Buffer, start: number, end: number): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(buf.toString('utf8', start, end));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function obj(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Keeps prompts and titles short: the index stores what a session list shows, not conversations. */
export function clip(text: string | null, max: number): string | null {
  if (text === null) return null;
  const flat = text.trim();
  if (flat.length === text.length && flat.length <= max) return flat;
  // A slice would keep the whole (possibly huge pasted) prompt alive in memory; copy it out.
  return Buffer.from(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat, 'utf8').toString('utf8');
}

/** Text of a message content that is either a string or a list of `{type:'text'|'input_text', text}` blocks. */
export function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const block of content) {
    const b = obj(block);
    const t = b && str(b.text);
    if (t !== null && t !== undefined && b && (b.type === 'text' || b.type === 'input_text' || b.type === 'Text')) parts.push(t);
  }
  return parts.length > 0 ? parts.join('\n') : null;
}

export function earlier(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return b < a ? b : a;
}

export function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return b > a ? b : a;
}

/** Widens a session's first and last activity by one record's timestamp. */
export function touchTimes(f: { startedAt: string | null; lastActivityAt: string | null }, ts: string | null): void {
  f.startedAt = earlier(f.startedAt, ts);
  f.lastActivityAt = later(f.lastActivityAt, ts);
}

/**
 * One journal line as both discovery readers take it: a wanted line is parsed whole (`onRecord`),
 * any other only checked to be an object, since parsing every large line would cost too much.
 * Returns true for such a skimmed line: the caller reads its timestamp from the raw bytes.
 */
export function parseOrSkim(
  buf: Buffer,
  start: number,
  end: number,
  wanted: boolean,
  onRecord: (record: Record<string, unknown>) => void,
  onMalformed: () => void,
): boolean {
  if (wanted) {
    const record = parseLine(buf, start, end);
    if (record === null) onMalformed();
    else onRecord(record);
    return false;
  }
  if (!looksLikeObject(buf, start, end)) {
    onMalformed();
    return false;
  }
  return true;
}
