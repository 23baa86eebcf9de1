import { describe, expect, it } from 'vitest';
import { attachCommand, HANDOFF_EVENTS, HANDOFF_STATES, HANDOFF_TABLE, handoffOf, handoffTransition, runsOutsideBria } from './handoff.ts';

// The handoff rules written out once more, cell by cell, independently of the table: any change to a
// cell of HANDOFF_TABLE (a target changed, a move added or removed) fails one of the pairs below.
// '-' = illegal.
const EXPECTED = {
  //          desk_seen desk_gone continue_requested desk_ended take_over_refused resumed_in_bria adopt_requested adopt_confirmed adopt_refused released
  none: ['desk', 'none', '-', '-', '-', 'none', '-', '-', '-', '-'],
  desk: ['desk', 'none', 'taking_over', '-', '-', 'none', 'adopting', '-', '-', '-'],
  taking_over: ['taking_over', 'taking_over', '-', 'none', 'desk', 'none', '-', '-', '-', '-'],
  adopting: ['adopting', 'adopting', '-', '-', '-', '-', '-', 'adopted', 'desk', '-'],
  adopted: ['adopted', 'adopted', '-', '-', '-', 'none', '-', '-', '-', 'none'],
} as const;

const pairs = HANDOFF_STATES.flatMap((state) => HANDOFF_EVENTS.map((event, i) => ({ state, event, expected: EXPECTED[state][i]! })));

describe('handoff table: every (state, event) pair', () => {
  it('covers 5 states × 10 events', () => {
    expect(pairs).toHaveLength(50);
    expect(Object.keys(HANDOFF_TABLE).sort()).toEqual([...HANDOFF_STATES].sort());
  });

  it.each(pairs)('$state + $event → $expected', ({ state, event, expected }) => {
    const r = handoffTransition(state, event);
    if (expected === '-') expect(r).toEqual({ ok: false, reason: 'ILLEGAL_HANDOFF', state, event });
    else expect(r).toEqual({ ok: true, next: expected });
  });
});

describe('handoff values', () => {
  it('reads stored values, an unknown one as none', () => {
    expect(handoffOf('desk')).toBe('desk');
    expect(handoffOf('taking_over')).toBe('taking_over');
    expect(handoffOf('someday')).toBe('none');
    expect(handoffOf(null)).toBe('none');
  });

  it('shows a record as running outside Bria while a desk process holds it or is being taken over', () => {
    expect(HANDOFF_STATES.filter(runsOutsideBria)).toEqual(['desk', 'taking_over', 'adopting']);
  });

  it("an adopted session is Bria's own: not shown as running in a terminal", () => {
    expect(runsOutsideBria('adopted')).toBe(false);
    expect(handoffOf('adopted')).toBe('adopted');
  });
});

describe('back to the desk', () => {
  it("names Bria's server by name and an adopted session's own server by its socket path", () => {
    expect(attachCommand({ state: 'Ready', identity: { tmuxSocket: 'bria', host: { tmuxSession: 'bria-1-g1' } } })).toBe('tmux -L bria attach -t bria-1-g1');
    expect(attachCommand({ state: 'Ready', identity: { tmuxSocket: '/tmp/tmux-1000/default', host: { tmuxSession: 'work' } } })).toBe(
      'tmux -S /tmp/tmux-1000/default attach -t work',
    );
    // Nothing a shell would read as more than a path.
    expect(attachCommand({ state: 'Ready', identity: { tmuxSocket: '/tmp/a b;rm', host: { tmuxSession: 'work' } } })).toBeNull();
    expect(attachCommand({ state: 'Ready', identity: { tmuxSocket: '/tmp/../x', host: { tmuxSession: 'work' } } })).toBeNull();
    expect(attachCommand({ state: 'Archived', identity: { tmuxSocket: '/tmp/x', host: { tmuxSession: 'work' } } })).toBeNull();
  });
});
