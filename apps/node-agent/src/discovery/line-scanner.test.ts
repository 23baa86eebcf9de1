import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanLines } from './line-scanner.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bria-lines-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function scanFile(content: string, start: number, maxLineBytes: number) {
  const file = join(root, 'f.jsonl');
  writeFileSync(file, content);
  const lines: { text: string; offset: number }[] = [];
  const huge: { head: string; tail: string; offset: number }[] = [];
  const fd = openSync(file, 'r');
  try {
    const result = scanLines(fd, start, maxLineBytes, {
      line: (buf, s, e, offset) => lines.push({ text: buf.toString('utf8', s, e), offset }),
      hugeLine: (head, tail, offset) => huge.push({ head: head.toString(), tail: tail.toString(), offset }),
    });
    return { result, lines, huge };
  } finally {
    closeSync(fd);
  }
}

describe('scanLines', () => {
  it('splits lines across read chunks and grown buffers, with their byte offsets', () => {
    // Lengths around the 1 MiB read chunk, one that needs the buffer to grow, empty lines, multi-byte text.
    const lengths = [10, 1_048_570, 3, 0, 2_500_000, 7, 1_048_576, 0, 42];
    const texts = lengths.map((n, i) => (n === 0 ? '' : `${String.fromCharCode(97 + i)}é`.repeat(Math.ceil(n / 3)).slice(0, n)));
    const content = `${texts.join('\n')}\n`;
    const { result, lines, huge } = scanFile(content, 0, 4 << 20);
    const expected: { text: string; offset: number }[] = [];
    let offset = 0;
    for (const t of texts) {
      if (t.length > 0) expected.push({ text: t, offset });
      offset += Buffer.byteLength(t) + 1;
    }
    expect(lines.length).toBe(expected.length);
    lines.forEach((l, i) => {
      expect(l.offset).toBe(expected[i]?.offset);
      expect(l.text === expected[i]?.text).toBe(true);
    });
    expect(huge).toEqual([]);
    expect(result).toEqual({ consumedTo: Buffer.byteLength(content), bytesRead: Buffer.byteLength(content), hugeLines: 0, partialTail: false });
  });

  it('streams past lines over the limit keeping head and tail, and leaves a partial last line unread', () => {
    const big = `{"start":1,${'x'.repeat(3_000_000)},"timestamp":"2026-12-01T10:00:00.000Z"}`;
    const content = `{"a":1}\n${big}\n{"b":2}\n{"partial":`;
    const { result, lines, huge } = scanFile(content, 0, 1 << 20);
    expect(lines.map((l) => l.text)).toEqual(['{"a":1}', '{"b":2}']);
    expect(huge).toHaveLength(1);
    expect(huge[0]?.offset).toBe(8);
    expect(huge[0]?.head.startsWith('{"start":1,xxx')).toBe(true);
    expect(huge[0]?.tail.endsWith('"timestamp":"2026-12-01T10:00:00.000Z"}')).toBe(true);
    expect(huge[0]?.tail.length).toBeLessThanOrEqual(2048);
    expect(result.hugeLines).toBe(1);
    expect(result.partialTail).toBe(true);
    expect(result.consumedTo).toBe(Buffer.byteLength(content) - '{"partial":'.length);
  });

  it('starts at an offset and reads only from there', () => {
    const content = '{"one":1}\n{"two":2}\n';
    const { result, lines } = scanFile(content, 10, 1 << 20);
    expect(lines).toEqual([{ text: '{"two":2}', offset: 10 }]);
    expect(result.bytesRead).toBe(10);
  });
});
