import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from './ledger.ts';

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bria-ledger-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
let n = 0;
const newId = () => `instance-${++n}`;

describe('agent ledger', () => {
  it('keeps unacknowledged events and the instance id across a restart, in order', () => {
    const dir = fresh();
    const a = new Ledger(dir, newId);
    for (let i = 1; i <= 5; i++) a.appendEvent({ at: i, event: 'e', payload: { i } });
    a.ack(2);
    const b = new Ledger(dir, newId);
    expect(b.instanceId).toBe(a.instanceId);
    expect(b.ackedUpTo).toBe(2);
    expect(b.unacked().map((e) => e.payload.i)).toEqual([3, 4, 5]);
    expect(b.appendEvent({ at: 6, event: 'e', payload: { i: 6 } })?.seq).toBe(6);
  });

  it('ignores a torn last line left by a crash mid-write', () => {
    const dir = fresh();
    const a = new Ledger(dir, newId);
    a.appendEvent({ at: 1, event: 'e', payload: {} });
    appendFileSync(path.join(dir, 'events.jsonl'), '{"seq":2,"at":2,"ev');
    const b = new Ledger(dir, newId);
    expect(b.unacked().map((e) => e.seq)).toEqual([1]);
    expect(b.lastSeq).toBe(1);
  });

  it('never lets an ack beyond what was written drop future events', () => {
    const dir = fresh();
    const a = new Ledger(dir, newId);
    a.appendEvent({ at: 1, event: 'e', payload: {} });
    a.ack(99);
    expect(a.ackedUpTo).toBe(1);
    expect(a.appendEvent({ at: 2, event: 'e', payload: {} })?.seq).toBe(2);
    expect(new Ledger(dir, newId).unacked().map((e) => e.seq)).toEqual([2]);
  });

  it('remembers commands and their results across a restart', () => {
    const dir = fresh();
    const a = new Ledger(dir, newId);
    a.recordCommand({ id: 'c1', command: 'probe', receivedAt: 1, status: 'received' });
    a.recordCommand({ id: 'c1', command: 'probe', receivedAt: 2, status: 'done', result: { ok: true } });
    const b = new Ledger(dir, newId);
    expect(b.command('c1')).toMatchObject({ status: 'done', result: { ok: true } });
    expect(b.command('c2')).toBeUndefined();
    // The start rewrote the two lines of c1 as one merged record.
    expect(readFileSync(path.join(dir, 'commands.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
    expect(new Ledger(dir, newId).command('c1')).toMatchObject({ status: 'done', result: { ok: true } });
  });
});

describe('agent ledger retention', () => {
  const DAY = 24 * 3600_000;
  const lines = (dir: string, f: string) => readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean).length;

  /** A done command whose answer is an event, as the hub client writes it (event first, then `done`). */
  function runCommand(l: Ledger, id: string, at: number, result: Record<string, unknown> = { ok: true }): void {
    l.recordCommand({ id, command: 'probe', receivedAt: at, status: 'received' });
    l.appendEvent({ at, event: 'command_result', commandId: id, payload: { command: 'probe', ...result } });
    l.recordCommand({ id, command: 'probe', receivedAt: at, status: 'done', result, doneAt: at });
  }

  it('forgets at start only done commands whose answer the hub acknowledged, older than the window and beyond the newest N', () => {
    const dir = fresh();
    let now = 0;
    const opts = { unchecked: true as const, retention: { keepDoneMs: 7 * DAY, keepLastDone: 2 }, now: () => now };
    const a = new Ledger(dir, newId, opts);
    for (let i = 1; i <= 6; i++) runCommand(a, `old-${i}`, i * 1000); // day 0
    a.recordCommand({ id: 'open', command: 'deliver', receivedAt: 7000, status: 'received' }); // never finished
    a.ack(4); // the hub stored the answers of old-1 … old-4 only
    runCommand(a, 'recent-1', 9 * DAY);
    runCommand(a, 'recent-2', 9 * DAY + 1);
    runCommand(a, 'recent-3', 9 * DAY + 2);
    now = 10 * DAY;
    const b = new Ledger(dir, newId, opts);
    // old-1..4: answered, acked, 10 days old → forgotten. old-5/6: answer unacked → kept.
    for (const id of ['old-1', 'old-2', 'old-3', 'old-4']) expect(b.command(id)).toBeUndefined();
    for (const id of ['old-5', 'old-6', 'recent-1', 'recent-2', 'recent-3']) expect(b.command(id)?.status).toBe('done');
    expect(b.command('open')?.status).toBe('received');
    expect(b.unfinishedCommands().map((c) => c.id)).toEqual(['open']);
    expect(lines(dir, 'commands.jsonl')).toBe(6);
    // Once the hub acknowledged every answer and the window passed, only the newest two (and the unfinished one) stay.
    b.ack(b.lastSeq);
    now = 20 * DAY;
    const c = new Ledger(dir, newId, opts);
    expect([...['old-5', 'old-6', 'recent-1', 'recent-2', 'recent-3', 'open']].filter((id) => c.command(id))).toEqual(['recent-2', 'recent-3', 'open']);
    expect(lines(dir, 'commands.jsonl')).toBe(3);
    // And a reopened ledger reads exactly that.
    expect(new Ledger(dir, newId, opts).command('recent-3')).toMatchObject({ status: 'done', result: { ok: true } });
  });

  it("keeps an unacknowledged answer's command whatever its age, and drops big results from kept records", () => {
    const dir = fresh();
    let now = 0;
    const opts = { unchecked: true as const, retention: { keepDoneMs: DAY, keepLastDone: 0 }, now: () => now };
    const a = new Ledger(dir, newId, opts);
    runCommand(a, 'big', 1, { ok: true, listing: 'x'.repeat(5000) });
    now = 100 * DAY;
    const b = new Ledger(dir, newId, opts);
    expect(b.command('big')).toMatchObject({ status: 'done', resultDropped: true });
    expect(b.command('big')?.result).toBeUndefined();
    expect(b.unacked().map((e) => e.commandId)).toEqual(['big']);
    b.ack(b.lastSeq);
    expect(new Ledger(dir, newId, opts).command('big')).toBeUndefined();
  });

  it('compacts commands.jsonl when it grows past the size, and never below what must stay', () => {
    const dir = fresh();
    let now = 0;
    const a = new Ledger(dir, newId, { unchecked: true, retention: { keepDoneMs: DAY, keepLastDone: 10, compactAboveBytes: 8_000 }, now: () => now });
    for (let i = 0; i < 150; i++) {
      now = i * DAY;
      runCommand(a, `c-${i}`, now);
      a.ack(a.lastSeq);
    }
    // 150 commands × 2 lines of ~130 bytes would be ~40 KB: the file stayed near the threshold.
    const size = a.stats().commandFileBytes;
    expect(size).toBeLessThan(10_000);
    expect(a.command('c-0')).toBeUndefined();
    for (let i = 140; i < 150; i++) expect(a.command(`c-${i}`)?.status).toBe('done');
    const b = new Ledger(dir, newId, { unchecked: true });
    for (let i = 140; i < 150; i++) expect(b.command(`c-${i}`)?.status).toBe('done');
  });

  it('rewrites events.jsonl at start when it holds acknowledged events', () => {
    const dir = fresh();
    const a = new Ledger(dir, newId, { unchecked: true });
    for (let i = 0; i < 100; i++) a.appendEvent({ at: i, event: 'e', payload: {} });
    a.ack(30); // 70 unacked left: no rewrite now
    expect(lines(dir, 'events.jsonl')).toBe(100);
    const b = new Ledger(dir, newId, { unchecked: true });
    expect(lines(dir, 'events.jsonl')).toBe(70);
    expect(b.unacked().map((e) => e.seq)).toEqual(Array.from({ length: 70 }, (_, i) => 31 + i));
  });
});
