import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from './ledger.ts';

const fresh = () => mkdtempSync(path.join(tmpdir(), 'bria-ledger-'));
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
    expect(b.appendEvent({ at: 6, event: 'e', payload: { i: 6 } }).seq).toBe(6);
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
    expect(a.appendEvent({ at: 2, event: 'e', payload: {} }).seq).toBe(2);
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
    expect(readFileSync(path.join(dir, 'commands.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  });
});
