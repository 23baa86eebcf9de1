import { describe, expect, it } from 'vitest';
import { OPEN_TOOL_BOUND_MS, TypingGate } from './typing-gate.ts';

/** A gate on a clock the test moves. */
function gate() {
  let now = 1_000_000;
  const g = new TypingGate(() => now);
  return {
    g,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

type Step =
  | { do: 'tool'; id: string }
  | { do: 'toolEnded'; id: string }
  | { do: 'turnEnded' }
  | { do: 'advance'; ms: number }
  | { do: 'begin'; pending?: boolean; expect: string | null }
  | { do: 'end' };

const TOOL = 'a tool call is in progress (it may still ask for permission)';
const TABLE: { name: string; steps: Step[]; released?: string[] }[] = [
  { name: 'nothing open: typing begins', steps: [{ do: 'begin', expect: null }] },
  { name: 'a pending request refuses', steps: [{ do: 'begin', pending: true, expect: 'a permission request is waiting for an answer' }] },
  {
    name: 'an open tool call refuses',
    steps: [
      { do: 'tool', id: 't1' },
      { do: 'begin', expect: TOOL },
    ],
    released: ['t1@now'],
  },
  {
    name: 'the tool call ended: typing begins',
    steps: [
      { do: 'tool', id: 't1' },
      { do: 'toolEnded', id: 't1' },
      { do: 'begin', expect: null },
    ],
    released: ['t1@now'],
  },
  {
    name: 'the turn ended: every open call is over',
    steps: [{ do: 'tool', id: 't1' }, { do: 'tool', id: 't2' }, { do: 'turnEnded' }, { do: 'begin', expect: null }],
    released: ['t1@now', 't2@now'],
  },
  {
    name: 'an open call stops counting after its bound',
    steps: [
      { do: 'tool', id: 't1' },
      { do: 'advance', ms: OPEN_TOOL_BOUND_MS },
      { do: 'begin', expect: TOOL },
      { do: 'advance', ms: 1 },
      { do: 'begin', expect: null },
    ],
    released: ['t1@now'],
  },
  {
    name: 'typing twice: the second is refused',
    steps: [
      { do: 'begin', expect: null },
      { do: 'begin', expect: 'another message is being typed' },
    ],
  },
  { name: 'typing ended: it may begin again', steps: [{ do: 'begin', expect: null }, { do: 'end' }, { do: 'begin', expect: null }] },
  { name: 'a tool call while typing waits for the end', steps: [{ do: 'begin', expect: null }, { do: 'tool', id: 't1' }, { do: 'end' }], released: ['t1@end'] },
  { name: 'a tool call while nobody types goes at once', steps: [{ do: 'tool', id: 't1' }], released: ['t1@now'] },
];

describe('typing gate', () => {
  it.each(TABLE)('$name', ({ steps, released = [] }) => {
    const { g, advance } = gate();
    const went: string[] = [];
    let phase = 'now';
    for (const s of steps) {
      if (s.do === 'tool') g.toolStarted('s', s.id, () => went.push(`${s.id}@${phase}`));
      else if (s.do === 'toolEnded') g.toolEnded('s', s.id);
      else if (s.do === 'turnEnded') g.turnEnded('s');
      else if (s.do === 'advance') advance(s.ms);
      else if (s.do === 'begin') expect(g.begin('s', s.pending === true)).toBe(s.expect);
      else {
        phase = 'end';
        g.end('s');
      }
      if (s.do === 'begin' && s.expect === null) phase = 'typing';
    }
    expect(went).toEqual(released);
  });

  it('sessions are apart', () => {
    const { g } = gate();
    g.toolStarted('a', 't1', () => {});
    expect(g.openToolCount('a')).toBe(1);
    expect(g.openToolCount('b')).toBe(0);
    expect(g.begin('b', false)).toBeNull();
    expect(g.begin('a', false)).toBe(TOOL);
  });
});
