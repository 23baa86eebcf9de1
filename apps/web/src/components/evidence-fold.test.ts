import { describe, expect, it } from 'vitest';
import { type FoldableEvidence, foldEvidence, foldKey } from './evidence-fold.ts';

interface Row extends FoldableEvidence {
  id: number;
}
let nextId = 1;
const row = (event: string, o: Partial<FoldableEvidence> = {}): Row => ({ id: nextId++, event, fromState: 'Ready', toState: 'Ready', evidence: null, ...o });
const stale = (type = 'turn_started') => row(`refused:${type}`, { evidence: { seq: nextId, code: 'STALE_GENERATION' } });
/** A folded list as `event×count` words, compact to compare. */
const shape = (rows: Row[]) => foldEvidence(rows).map((f) => (f.count === 1 ? f.item.event : `${f.item.event}×${f.count}`));

describe('foldKey', () => {
  it.each([
    ['a refused report', stale(), 'refused:turn_started|STALE_GENERATION'],
    ['a refused report without a code', row('refused:activity'), 'refused:activity|'],
    ['a token report', row('usage'), 'usage'],
    ['a retry', row('recovery_retry_due'), 'recovery_retry_due'],
    ['a person’s request', row('stop_requested'), null],
    ['an answer', row('turn_completed'), null],
    ['a permission request', row('permission_request'), null],
    ['a technical row that changed the state', row('recovery_retry_due', { fromState: 'Recovering', toState: 'Ready' }), null],
  ])('%s', (_what, e, key) => {
    expect(foldKey(e)).toBe(key);
  });
});

describe('foldEvidence', () => {
  it('128 stale reports in a row become one row with the count, the newest shown and the oldest kept', () => {
    const rows = [row('create', { fromState: null, toState: 'Starting' }), ...Array.from({ length: 128 }, () => stale()), row('turn_completed')];
    const folded = foldEvidence(rows);
    expect(folded.map((f) => [f.item.event, f.count])).toEqual([
      ['create', 1],
      ['refused:turn_started', 128],
      ['turn_completed', 1],
    ]);
    expect(folded[1]?.first).toBe(rows[1]);
    expect(folded[1]?.item).toBe(rows[128]);
  });

  it.each([
    [
      'different codes stay apart',
      [stale(), row('refused:turn_started', { evidence: { code: 'ILLEGAL_TRANSITION' } }), stale()],
      ['refused:turn_started', 'refused:turn_started', 'refused:turn_started'],
    ],
    ['different refused types stay apart', [stale(), stale(), stale('activity'), stale('activity')], ['refused:turn_started×2', 'refused:activity×2']],
    ['a run is cut by any other row', [row('usage'), row('usage'), row('turn_completed'), row('usage')], ['usage×2', 'turn_completed', 'usage']],
    [
      'rows a person reads are never folded',
      [row('stop_requested'), row('stop_requested'), row('permission_answered'), row('permission_answered')],
      ['stop_requested', 'stop_requested', 'permission_answered', 'permission_answered'],
    ],
    ['one technical row stays one row', [row('usage')], ['usage']],
    ['nothing stays nothing', [], []],
  ])('%s', (_what, rows, expected) => {
    expect(shape(rows as Row[])).toEqual(expected);
  });

  it('keeps every row counted: the counts add up to the rows', () => {
    const rows = [stale(), stale(), row('usage'), row('create'), stale(), row('usage'), row('usage')];
    expect(foldEvidence(rows).reduce((n, f) => n + f.count, 0)).toBe(rows.length);
  });
});
