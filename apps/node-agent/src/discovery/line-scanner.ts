import { readSync } from 'node:fs';

// Reads newline-terminated records from an open file, starting at a byte offset, with bounded
// memory: one reusable buffer that grows only up to `maxLineBytes`. Longer lines are streamed past
// and handed over as a short head and tail, so a multi-megabyte tool output never sits in memory.
// Synchronous on purpose: the index yields to the event loop between files, and sync reads of
// page-cached journals are several times faster than the promise API.

export const NEWLINE = 10;
const FRAGMENT_BYTES = 2048;
const BASE_CHUNK = 1 << 20;

export interface LineSink {
  /** A complete line `buf[start, end)` (newline excluded) that began at file byte `fileOffset`. */
  line(buf: Buffer, start: number, end: number, fileOffset: number): void;
  /** A line longer than the limit: only its first and last bytes are kept. */
  hugeLine(head: Buffer, tail: Buffer, fileOffset: number): void;
}

export interface LineScanResult {
  /** File offset just after the last complete line; a partial last line is left for later. */
  consumedTo: number;
  bytesRead: number;
  hugeLines: number;
  partialTail: boolean;
}

let shared = Buffer.allocUnsafe(BASE_CHUNK);

export function scanLines(fd: number, start: number, maxLineBytes: number, sink: LineSink): LineScanResult {
  let buf = maxLineBytes < shared.length ? Buffer.allocUnsafe(maxLineBytes) : shared;
  let base = start; // file offset of buf[0]
  let fill = 0;
  let bytesRead = 0;
  let hugeLines = 0;
  let skipping: { head: Buffer; tail: Buffer; offset: number } | null = null;

  try {
    for (;;) {
      if (fill === buf.length) {
        if (buf.length < maxLineBytes) {
          const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxLineBytes));
          buf.copy(bigger, 0, 0, fill);
          buf = bigger;
        } else {
          // The current line does not fit: keep its head, then stream past the rest.
          skipping = {
            head: Buffer.from(buf.subarray(0, FRAGMENT_BYTES)),
            tail: Buffer.from(buf.subarray(Math.max(0, fill - FRAGMENT_BYTES), fill)),
            offset: base,
          };
          base += fill;
          fill = 0;
        }
      }
      const n = readSync(fd, buf, fill, buf.length - fill, base + fill);
      if (n === 0) break;
      bytesRead += n;
      const view = buf.subarray(0, fill + n);
      let cursor = fill;
      let lineStart = 0;
      if (skipping) {
        const nl = view.indexOf(NEWLINE, cursor);
        if (nl === -1) {
          skipping.tail = keepTail(skipping.tail, view.subarray(0, fill + n));
          base += fill + n;
          fill = 0;
          continue;
        }
        skipping.tail = keepTail(skipping.tail, view.subarray(0, nl));
        sink.hugeLine(skipping.head, skipping.tail, skipping.offset);
        hugeLines++;
        skipping = null;
        lineStart = nl + 1;
        cursor = lineStart;
      } else {
        // The carried-over partial line has no newline, so the search can start at the new bytes.
        cursor = fill;
      }
      for (;;) {
        const nl = view.indexOf(NEWLINE, cursor);
        if (nl === -1) break;
        if (nl > lineStart) sink.line(view, lineStart, nl, base + lineStart);
        lineStart = nl + 1;
        cursor = lineStart;
      }
      fill = view.length - lineStart;
      if (lineStart > 0 && fill > 0) buf.copyWithin(0, lineStart, view.length);
      base += lineStart;
    }
  } finally {
    // Give back a buffer grown for one long line so the steady state stays small.
    if (buf.length === BASE_CHUNK) shared = buf;
  }
  if (skipping) return { consumedTo: skipping.offset, bytesRead, hugeLines, partialTail: true };
  return { consumedTo: base, bytesRead, hugeLines, partialTail: fill > 0 };
}

function keepTail(previous: Buffer, more: Buffer): Buffer {
  if (more.length >= FRAGMENT_BYTES) return Buffer.from(more.subarray(more.length - FRAGMENT_BYTES));
  const joined = Buffer.concat([previous, more]);
  return joined.length > FRAGMENT_BYTES ? joined.subarray(joined.length - FRAGMENT_BYTES) : joined;
}
