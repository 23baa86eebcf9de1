import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type JournalLine, JournalShrankError, JsonlTailer } from './jsonl-tailer.ts';
import { scratchDir } from '@bria/testkit/scratch';

async function until(pred: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(10);
  }
}

describe('JsonlTailer', () => {
  it('waits for the file, delivers only complete lines with byte offsets, and follows growth', async () => {
    const dir = scratchDir('bria-tail-');
    const path = join(dir, 'j.jsonl');
    const got: JournalLine[] = [];
    // A long poll interval proves the wake-ups come from fs.watch, not from polling.
    const t = new JsonlTailer({ path, onLines: (l) => got.push(...l), pollMs: 60_000 });
    t.start();
    try {
      await sleep(50);
      writeFileSync(path, '{"a":"ü"}\n{"b":');
      await until(() => got.length === 1);
      expect(got[0]).toEqual({ offset: 0, end: 11, text: '{"a":"ü"}' });
      await sleep(100);
      expect(got).toHaveLength(1);
      appendFileSync(path, '2}\n{"c":3}\n');
      await until(() => got.length === 3);
      expect(got[1]).toEqual({ offset: 11, end: 19, text: '{"b":2}' });
      expect(got[2]!.offset).toBe(19);
      expect(t.offset).toBe(27);
    } finally {
      t.stop();
    }
  });

  it('resumes from a given offset without re-delivering earlier lines', async () => {
    const dir = scratchDir('bria-tail-');
    const path = join(dir, 'j.jsonl');
    writeFileSync(path, '{"a":1}\n{"b":2}\n');
    const got: JournalLine[] = [];
    const t = new JsonlTailer({ path, offset: 8, onLines: (l) => got.push(...l), pollMs: 60_000 });
    await t.readNow();
    expect(got.map((l) => l.text)).toEqual(['{"b":2}']);
    t.stop();
  });

  it('reports a journal that shrinks instead of silently waiting', async () => {
    const dir = scratchDir('bria-tail-');
    const path = join(dir, 'j.jsonl');
    writeFileSync(path, '{"a":1}\n{"b":2}\n');
    const errors: Error[] = [];
    const t = new JsonlTailer({ path, offset: 16, onLines: () => undefined, onError: (e) => errors.push(e), pollMs: 60_000 });
    writeFileSync(path, '{"a":1}\n');
    await t.readNow();
    expect(errors[0]).toBeInstanceOf(JournalShrankError);
    t.stop();
  });
});
