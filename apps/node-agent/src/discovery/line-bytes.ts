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

/** Whether `needle` occurs in the line, looking only at the two end windows of long lines. */
export function lineHas(buf: Buffer, start: number, end: number, needle: Buffer): boolean {
  if (end - start <= 2 * WINDOW) return within(buf, start, end, needle) !== -1;
  return within(buf, start, start + WINDOW, needle) !== -1 || within(buf, end - WINDOW, end, needle) !== -1;
}

/** indexOf bounded to `[start, end)`: a plain indexOf would search on to the end of the buffer. */
export function within(buf: Buffer, start: number, end: number, needle: Buffer): number {
  const at = buf.subarray(start, end).indexOf(needle);
  return at === -1 ? -1 : start + at;
}

/** Reads the JSON string value that follows `"key":"` (given as `needle`), first or last occurrence. */
export function stringField(buf: Buffer, start: number, end: number, needle: Buffer, last: boolean): string | null {
  let at: number;
  if (last) {
    const rel = buf.subarray(start, end).lastIndexOf(needle);
    if (rel === -1) return null;
    at = start + rel;
  } else {
    at = within(buf, start, end, needle);
    if (at === -1) return null;
  }
  const open = at + needle.length - 1; // the opening quote is the needle's last byte
  for (let i = open + 1; i < end; i++) {
    const b = buf[i];
    if (b === BACKSLASH) i++;
    else if (b === QUOTE) {
      try {
        return JSON.parse(buf.toString('utf8', open, i + 1)) as string;
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
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
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
