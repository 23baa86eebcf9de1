import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENT_REFUSED, MAX_EVENT_FRAME_BYTES } from '@bria/core/protocol';
import type { AgentLog } from '../log.ts';
import { Ledger } from './ledger.ts';

/**
 * Issue 30: nothing enters the ledger that the protocol would refuse (such an event was replayed
 * first on every reconnect and cut the computer off for good); a bad record an older agent stored
 * does not block the rest.
 */
const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bria-ledger-v-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const SID = '11111111-1111-4111-8111-111111111111';

function collect(): { log: AgentLog; entries: { msg: string; fields?: Record<string, unknown> }[] } {
  const entries: { msg: string; fields?: Record<string, unknown> }[] = [];
  return { log: (_level, msg, fields) => entries.push({ msg, fields }), entries };
}
const fileLines = (dir: string) => readFileSync(path.join(dir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);

describe('ledger validation', () => {
  const refused: [string, Parameters<Ledger['appendEvent']>[0], RegExp][] = [
    ['a forged session id', { at: 1, event: 'activity', sessionId: 'not-a-session', payload: {} }, /sessionId/],
    ['a frame over the bound', { at: 1, event: 'marker', payload: { text: 'Ж'.repeat(MAX_EVENT_FRAME_BYTES / 2) } }, /exceeds/],
    ['a final without its turn id', { at: 1, event: 'turn_final', sessionId: SID, generation: 1, payload: { text: 'x' } }, /nativeTurnId/],
  ];
  for (const [name, ev, reason] of refused) {
    it(`refuses ${name} at append, logs why, stores nothing`, () => {
      const dir = fresh();
      const { log, entries } = collect();
      const l = new Ledger(dir, () => 'i', { log });
      l.appendEvent({ at: 1, event: 'marker', payload: {} });
      expect(l.appendEvent(ev)).toBeUndefined();
      expect(entries).toEqual([{ msg: 'ledger.event_refused', fields: expect.objectContaining({ reason: expect.stringMatching(reason) }) }]);
      // Physically: one line on disk, and the next event takes the next seq (no gap).
      expect(fileLines(dir)).toHaveLength(1);
      expect(l.appendEvent({ at: 2, event: 'marker', payload: {} })?.seq).toBe(2);
      expect(new Ledger(dir, () => 'i').unacked().map((e) => e.seq)).toEqual([1, 2]);
    });
  }

  it('appends the parts of one event all or none', () => {
    const dir = fresh();
    const l = new Ledger(dir, () => 'i', { log: () => {} });
    l.appendEvent({ at: 1, event: 'first', payload: {} });
    expect(
      l.appendEvents([
        { at: 1, event: 'a', payload: {} },
        { at: 1, event: '', payload: {} },
      ]),
    ).toEqual([]);
    expect(fileLines(dir)).toHaveLength(1);
    expect(
      l
        .appendEvents([
          { at: 1, event: 'a', payload: {} },
          { at: 1, event: 'b', payload: {} },
        ])
        .map((e) => e.seq),
    ).toEqual([2, 3]);
  });

  it('replaces a stored bad record (an older agent wrote it) on replay by a marker of the same seq, logged, and keeps the rest', () => {
    const dir = fresh();
    const l = new Ledger(dir, () => 'i');
    l.appendEvent({ at: 1, event: 'marker', payload: { n: 1 } });
    // What an agent before issue 30 stored from a forged hook line: a session id the hub refuses.
    appendFileSync(path.join(dir, 'events.jsonl'), `${JSON.stringify({ seq: 2, at: 2, event: 'activity', sessionId: 'forged', payload: {} })}\n`);
    appendFileSync(path.join(dir, 'events.jsonl'), `${JSON.stringify({ seq: 3, at: 3, event: 'marker', payload: { n: 3 } })}\n`);
    const { log, entries } = collect();
    const again = new Ledger(dir, () => 'i', { log });
    const replay = again.unacked();
    expect(replay.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(replay[1]).toMatchObject({ seq: 2, event: EVENT_REFUSED, payload: { event: 'activity', reason: expect.stringMatching(/sessionId/) } });
    expect(replay[2]?.payload).toEqual({ n: 3 });
    expect(entries.map((e) => e.msg)).toEqual(['ledger.stored_event_refused']);
    // Rewritten on disk: the forged record is gone for good.
    expect(fileLines(dir).some((line) => line.includes('forged'))).toBe(false);
    expect(again.appendEvent({ at: 4, event: 'marker', payload: {} })?.seq).toBe(4);
  });
});
