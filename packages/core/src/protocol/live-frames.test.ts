import { describe, expect, it } from 'vitest';
import { encodeDraftNotice, parseDraftNotice } from '../db/repos/drafts.ts';
import { applyDraft, type Draft, draftDelta } from './live-frames.ts';

const S = '11111111-1111-4111-8111-111111111111';
const M = '22222222-2222-4222-8222-222222222222';
const frame = (v: number, d: { base: number; tail: string }, messageId = M): Draft => ({ type: 'draft', sessionId: S, generation: 1, messageId, v, ...d });

describe('draft frames carry only the changed end', () => {
  it.each([
    [null, 'hello', 0, 'hello'],
    ['hello', 'hello world', 5, ' world'],
    ['hello wor', 'hello there', 6, 'there'],
    ['abc', 'abc', 3, ''],
    ['a🙂b', 'a🙂c', 3, 'c'],
    ['a\uD83D\uDE42', 'a\uD83D\uDE43', 1, '\uD83D\uDE43'],
  ])('%j → %j keeps %i and sends %j', (prev, next, base, tail) => {
    expect(draftDelta(prev, next)).toEqual({ base, tail });
    const kept = prev === null ? null : { messageId: M, v: 1, text: prev };
    expect(applyDraft(kept, frame(2, { base, tail }))).toBe(base === 0 ? tail : next);
  });

  it('drops a frame that does not follow what the receiver kept, until a whole one comes', () => {
    const kept = { messageId: M, v: 3, text: 'hello' };
    expect(applyDraft(kept, frame(5, { base: 5, tail: '!' }))).toBeNull(); // a lost v4
    expect(applyDraft(kept, frame(4, { base: 9, tail: '!' }))).toBeNull(); // base past the kept text
    expect(applyDraft(kept, frame(4, { base: 2, tail: '!' }, S))).toBeNull(); // another turn
    expect(applyDraft(null, frame(4, { base: 2, tail: '!' }))).toBeNull(); // nothing kept (hub restarted)
    expect(applyDraft(kept, frame(9, { base: 0, tail: 'again' }))).toBe('again');
  });
});

describe('the NOTIFY notice of a draft stays under Postgres 8000-byte payload limit', () => {
  it.each([
    ['short', 'an answer', 0],
    ['long ASCII', 'x'.repeat(50_000), 48_000],
    ['long wide', '日本語'.repeat(5_000), 13_000],
    ['escapes', '"\\\n'.repeat(4_000), 10_000],
  ])('%s', (_, text, cut) => {
    const payload = encodeDraftNotice({ sessionId: S, messageId: M, v: 7, text });
    expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    const n = parseDraftNotice(payload)!;
    expect(n).toMatchObject({ sessionId: S, messageId: M, v: 7, cut });
    expect(text.slice(n.cut)).toBe(n.text);
  });

  it('refuses a payload that is not a notice', () => {
    for (const p of ['', 'x', '{}', JSON.stringify({ s: 'nope', m: M, v: 1, c: 0, t: '' })]) expect(parseDraftNotice(p)).toBeNull();
  });
});
