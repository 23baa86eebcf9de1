import { describe, expect, it } from 'vitest';
import { RECONNECT_CAP_MS, RECONNECT_FLOOR_MS, reconnectCeiling, reconnectDelay } from './backoff.ts';
import {
  EVENT_PART,
  MAX_EVENT_FRAME_BYTES,
  PART_DATA_BYTES,
  assembleParts,
  cutByJsonBytes,
  eventFrame,
  eventRefusal,
  splitEvent,
  storableJson,
  zEventPart,
  type EventPart,
} from './event-frames.ts';
import { zAnswerPermission } from './session-commands.ts';

const SID = '11111111-1111-4111-8111-111111111111';
const MID = '22222222-2222-4222-8222-222222222222';
const PART_OF = '33333333-3333-4333-8333-333333333333';
const base = { seq: 1, at: 1 };

describe('eventRefusal: nothing the protocol would refuse', () => {
  const cases: [string, Parameters<typeof eventRefusal>[0], RegExp | null][] = [
    ['a marker event', { ...base, event: 'marker', payload: { x: 1 } }, null],
    ['a final', { ...base, event: 'turn_final', sessionId: SID, generation: 1, payload: { nativeTurnId: 't', text: 'hi' } }, null],
    ['a session id that is not a uuid (the forged hook line)', { ...base, event: 'activity', sessionId: '../../etc', payload: {} }, /envelope: sessionId/],
    ['seq 0', { ...base, seq: 0, event: 'marker', payload: {} }, /envelope: seq/],
    ['an empty name', { ...base, event: '', payload: {} }, /envelope: event/],
    ['a final without its turn', { ...base, event: 'turn_final', sessionId: SID, payload: { text: 'x' } }, /turn_final: nativeTurnId/],
    ['a frame over the bound', { ...base, event: 'marker', payload: { big: 'x'.repeat(MAX_EVENT_FRAME_BYTES) } }, /exceeds 524288/],
    ['a part with a bad index', { ...base, event: EVENT_PART, payload: { partOf: PART_OF, index: 99, count: 2, event: 'e', data: '' } }, /event_part: index/],
  ];
  for (const [name, ev, want] of cases) {
    it(name, () => {
      const r = eventRefusal(ev);
      if (want === null) expect(r).toBeNull();
      else expect(r).toMatch(want);
    });
  }
});

describe('splitEvent / assembleParts', () => {
  const text = 'Ж'.repeat(600_000); // ~1.2 MB as UTF-8
  const final = { at: 5, event: 'turn_final', sessionId: SID, generation: 3, payload: { messageId: MID, nativeTurnId: 't1', text } };

  it('splits a 1.2 MB final into parts that each fit a frame, and joins them back exactly', () => {
    const parts = splitEvent(final, PART_OF);
    expect(parts.length).toBeGreaterThanOrEqual(5);
    for (const [i, p] of parts.entries()) {
      expect(p.event).toBe(EVENT_PART);
      expect(p.sessionId).toBe(SID);
      expect(p.generation).toBe(3);
      const frame = { ...p, seq: 10 + i };
      expect(eventRefusal(frame)).toBeNull();
      expect(Buffer.byteLength(JSON.stringify(eventFrame(frame)))).toBeLessThanOrEqual(MAX_EVENT_FRAME_BYTES);
    }
    const data = parts.map((p) => zEventPart.parse(p.payload));
    const whole = assembleParts([...data].reverse());
    expect(whole).toEqual({ ok: true, event: 'turn_final', payload: final.payload });
  });

  it('leaves an event that fits alone', () => {
    const small = { ...final, payload: { ...final.payload, text: 'short' } };
    expect(splitEvent(small, PART_OF)).toEqual([small]);
  });

  it('never cuts a surrogate pair and counts escapes', () => {
    const s = `${'"'.repeat(10)}😀\u0001${'😀'.repeat(10)}`;
    const pieces = cutByJsonBytes(s, 7);
    expect(pieces.join('')).toBe(s);
    for (const p of pieces) {
      expect(Buffer.byteLength(JSON.stringify(p)) - 2).toBeLessThanOrEqual(7);
      expect(/^[\uDC00-\uDFFF]/.test(p)).toBe(false);
    }
  });

  it('refuses a missing, repeated or foreign part', () => {
    const parts = splitEvent(final, PART_OF).map((p) => p.payload as EventPart);
    expect(assembleParts(parts.slice(1))).toMatchObject({ ok: false });
    expect(assembleParts([...parts.slice(0, -1), parts[0]!])).toMatchObject({ ok: false });
    expect(assembleParts([...parts.slice(0, -1), { ...parts.at(-1)!, partOf: SID }])).toMatchObject({ ok: false });
    expect(
      assembleParts([
        { partOf: PART_OF, index: 0, count: 2, event: 'e', data: '[1' },
        { partOf: PART_OF, index: 1, count: 2, event: 'e', data: ']' },
      ]),
    ).toMatchObject({
      ok: false,
      error: /not a JSON object/,
    });
    expect(PART_DATA_BYTES).toBeLessThan(MAX_EVENT_FRAME_BYTES);
  });
});

describe('reconnect backoff: exponential, full jitter, never below the floor', () => {
  // attempt → [shortest, longest] wait
  const table: [number, number, number][] = [
    [0, 250, 500],
    [1, 250, 1_000],
    [2, 250, 2_000],
    [3, 250, 4_000],
    [5, 250, 16_000],
    [6, 250, 30_000],
    [50, 250, 30_000],
  ];
  for (const [attempt, lo, hi] of table) {
    it(`attempt ${attempt}: ${lo}…${hi} ms`, () => {
      expect(reconnectCeiling(attempt)).toBe(hi);
      expect(reconnectDelay(attempt, 0)).toBe(lo);
      expect(reconnectDelay(attempt, 1)).toBe(hi);
      expect(reconnectDelay(attempt, 0.5)).toBe(Math.round(lo + (hi - lo) / 2));
    });
  }
  it('clamps a broken random source', () => {
    expect(reconnectDelay(2, -3)).toBe(RECONNECT_FLOOR_MS);
    expect(reconnectDelay(2, Number.NaN)).toBe(2_000);
    expect(reconnectDelay(Number.POSITIVE_INFINITY, 1)).toBe(RECONNECT_CAP_MS);
  });
});

describe('answer_permission bounds', () => {
  const ok = { generation: 1, requestId: SID, answerId: MID, decision: 'allow' as const, from: 'dashboard' as const };
  it('takes a few answers', () => {
    expect(zAnswerPermission.safeParse({ ...ok, answers: { 'Which?': 'A', 'Many?': ['x', 'y'] } }).success).toBe(true);
  });
  it('refuses 1.2 MB of answers, and more than 20 questions', () => {
    const big = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`q${i}`, 'Ж'.repeat(4000)]));
    expect(zAnswerPermission.safeParse({ ...ok, answers: big }).success).toBe(false);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`q${i}`, 'a']));
    expect(zAnswerPermission.safeParse({ ...ok, answers: many }).success).toBe(false);
  });
});

describe('what Postgres cannot store', () => {
  const cases: [string, unknown, boolean][] = [
    ['a NUL', { t: 'a\u0000b' }, true],
    ['a lone high surrogate', { t: 'a\uD800' }, true],
    ['a lone low surrogate', { t: '\uDC00z' }, true],
    ['a proper pair', { t: '😀' }, false],
    ['an escaped backslash before u0000', { t: '\\u0000' }, false],
    ['plain Cyrillic', { t: 'Привет' }, false],
  ];
  for (const [name, payload, bad] of cases) {
    it(`${name}: ${bad ? 'refused, and replaced by the agent' : 'accepted'}`, () => {
      const r = eventRefusal({ seq: 1, at: 1, event: 'marker', payload: payload as Record<string, unknown> });
      if (bad) expect(r).toMatch(/NUL character or a lone surrogate/);
      else expect(r).toBeNull();
      const fixed = storableJson(payload);
      expect(eventRefusal({ seq: 1, at: 1, event: 'marker', payload: fixed as Record<string, unknown> })).toBeNull();
      if (!bad) expect(fixed).toBe(payload);
      else expect(JSON.stringify(fixed)).toContain('\uFFFD');
    });
  }
});
