import { describe, expect, it } from 'vitest';
import type { PromptEnd } from './agent-facts.ts';
import {
  answeredAtComputer,
  answerFits,
  type AnswerShape,
  FINAL_PROMPT_STATES,
  OPEN_PROMPT_STATES,
  PROMPT_END_CAUSES,
  PROMPT_EVENTS,
  PROMPT_STATES,
  PROMPT_TABLE,
  type PromptEvent,
  type PromptState,
  promptEventOfEnd,
  promptStateAfter,
  promptStatesFor,
  promptTargetOf,
  promptTransition,
  promptWait,
} from './prompt-machine.ts';
import readme from './README.md?raw';

const REQUEST = '7f0c8c1e-3a52-4c1b-9d1e-2b8e6f1a0c11';
const E = 'ended';
const W = 'waiting_at_computer';
const C = 'answered_at_computer';
const D = 'delivered';

/**
 * Every (state, event) pair written out independently of the table: '-' = no move. Changing,
 * adding or removing any cell of PROMPT_TABLE fails the test below.
 */
const EXPECTED: Record<PromptState, Record<PromptEvent, PromptState | '-'>> = {
  //                   answered      answer_delivered  hook_gone  expired  turn_ended cli_exited cli_ready superseded stop_requested archived
  pending: {
    answered: 'answered',
    answer_delivered: D,
    hook_gone: C,
    expired: W,
    turn_ended: E,
    cli_exited: E,
    cli_ready: E,
    superseded: E,
    stop_requested: E,
    archived: E,
  },
  answered: {
    answered: '-',
    answer_delivered: D,
    hook_gone: C,
    expired: W,
    turn_ended: E,
    cli_exited: E,
    cli_ready: E,
    superseded: E,
    stop_requested: E,
    archived: E,
  },
  delivered: {
    answered: '-',
    answer_delivered: '-',
    hook_gone: '-',
    expired: '-',
    turn_ended: '-',
    cli_exited: '-',
    cli_ready: '-',
    superseded: '-',
    stop_requested: '-',
    archived: '-',
  },
  waiting_at_computer: {
    answered: '-',
    answer_delivered: D,
    hook_gone: C,
    expired: '-',
    turn_ended: E,
    cli_exited: E,
    cli_ready: E,
    superseded: E,
    stop_requested: E,
    archived: E,
  },
  answered_at_computer: {
    answered: '-',
    answer_delivered: '-',
    hook_gone: '-',
    expired: '-',
    turn_ended: '-',
    cli_exited: '-',
    cli_ready: '-',
    superseded: '-',
    stop_requested: '-',
    archived: '-',
  },
  ended: {
    answered: '-',
    answer_delivered: '-',
    hook_gone: '-',
    expired: '-',
    turn_ended: '-',
    cli_exited: '-',
    cli_ready: '-',
    superseded: '-',
    stop_requested: '-',
    archived: '-',
  },
};

describe('the prompt table, every (state, event) pair', () => {
  const pairs = PROMPT_STATES.flatMap((s) => PROMPT_EVENTS.map((e) => ({ s, e, to: EXPECTED[s][e] })));
  it('covers the six states and ten events exactly', () => {
    expect(pairs).toHaveLength(60);
    expect(Object.keys(PROMPT_TABLE).sort()).toEqual([...PROMPT_STATES].sort());
    expect(Object.keys(EXPECTED).sort()).toEqual([...PROMPT_STATES].sort());
  });
  it.each(pairs)('$s + $e → $to', ({ s, e, to }) => {
    expect(promptTransition(s, e)).toBe(to === '-' ? null : to);
  });
  it('lists no event outside PROMPT_EVENTS and no cell the expected table lacks', () => {
    for (const s of PROMPT_STATES) {
      const cells = Object.entries(PROMPT_TABLE[s]);
      expect(cells.map(([e]) => e).every((e) => (PROMPT_EVENTS as readonly string[]).includes(e))).toBe(true);
      expect(Object.fromEntries(cells)).toEqual(Object.fromEntries(Object.entries(EXPECTED[s]).filter(([, to]) => to !== '-')));
    }
  });
});

describe("the README's prompt table", () => {
  it('says what PROMPT_TABLE says, pair by pair', () => {
    const start = readme.indexOf('<!-- prompt-table:start -->');
    const end = readme.indexOf('<!-- prompt-table:end -->');
    expect(start).toBeGreaterThan(0);
    const names = (cell: string) => [...cell.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string);
    const [head, , ...rows] = readme
      .slice(start, end)
      .trim()
      .split('\n')
      .slice(1)
      .map((l) =>
        l
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    const seen: string[] = [];
    for (const row of rows) {
      for (const state of names(row[0] ?? '')) {
        (head ?? []).slice(1).forEach((cell, i) => {
          for (const event of names(cell)) {
            const to = names(row[i + 1] ?? '')[0] ?? null;
            expect({ state, event, to }).toEqual({ state, event, to: promptTransition(state as PromptState, event as PromptEvent) });
            seen.push(`${state}+${event}`);
          }
        });
      }
    }
    expect(seen).toHaveLength(PROMPT_STATES.length * PROMPT_EVENTS.length);
  });
});

describe('what the table implies', () => {
  it('open states hold the queue; final states are those without a way out', () => {
    expect(OPEN_PROMPT_STATES).toEqual(['pending', 'answered', 'waiting_at_computer']);
    expect(FINAL_PROMPT_STATES).toEqual(['delivered', 'answered_at_computer', 'ended']);
  });
  it('the first answer wins: only a pending prompt takes one', () => {
    expect(promptStatesFor('answered')).toEqual(['pending']);
    expect(promptTargetOf('answered')).toBe('answered');
  });
  it.each(PROMPT_EVENTS)('%s has one target (the repositories write it in one statement)', (e) => {
    const targets = new Set(PROMPT_STATES.map((s) => EXPECTED[s][e]).filter((t) => t !== '-'));
    expect([...targets]).toEqual([promptTargetOf(e)]);
  });
  it('every stored end cause is an event that ends open prompts', () => {
    for (const [cause, e] of Object.entries(PROMPT_END_CAUSES)) {
      expect({ cause, to: promptTargetOf(e), from: promptStatesFor(e) }).toEqual({ cause, to: 'ended', from: OPEN_PROMPT_STATES });
    }
  });
  it('the computer answered only when no answer of Bria was on its way', () => {
    expect(answeredAtComputer('pending', 'answered_at_computer')).toBe(true);
    expect(answeredAtComputer('waiting_at_computer', 'answered_at_computer')).toBe(true);
    expect(answeredAtComputer('answered', 'answered_at_computer')).toBe(false);
    expect(answeredAtComputer('pending', 'waiting_at_computer')).toBe(false);
  });
});

describe("promptEventOfEnd (the agent's report → the event)", () => {
  it.each([
    { outcome: 'answered', answerId: 'a1', row: 'a1', e: 'answer_delivered' },
    { outcome: 'answered', answerId: 'a2', row: 'a1', e: null },
    { outcome: 'answered', answerId: undefined, row: null, e: null },
    { outcome: 'hook_gone', answerId: undefined, row: null, e: 'hook_gone' },
    { outcome: 'expired', answerId: undefined, row: 'a1', e: 'expired' },
    { outcome: 'lost_on_restart', answerId: undefined, row: null, e: 'expired' },
  ] as const)('$outcome ($answerId for row $row) → $e', ({ outcome, answerId, row, e }) => {
    expect(promptEventOfEnd({ outcome, ...(answerId ? { answerId } : {}) }, row)).toBe(e);
  });
});

describe('promptWait (sessions list, bot and page alike)', () => {
  it.each([
    { states: [], wait: null },
    { states: ['answered', 'delivered', 'ended'], wait: null },
    { states: ['waiting_at_computer', 'answered'], wait: 'computer' },
    { states: ['waiting_at_computer', 'pending'], wait: 'answer' },
  ] as const)('$states → $wait', ({ states, wait }) => {
    expect(promptWait(states.map((state) => ({ state })))).toBe(wait);
  });
  it('no prompts loaded yet: no wait', () => {
    expect(promptWait(undefined)).toBeNull();
  });
});

describe('answerFits (hub before it stores an answer, agent before it hands one to a hook)', () => {
  const claudeTool = { alwaysAllow: true, answers: false };
  const claudeQuestion = { alwaysAllow: false, answers: true };
  const codexTool = { alwaysAllow: false, answers: false };
  const a = (o: Partial<AnswerShape>): AnswerShape => ({ allow: true, alwaysAllow: false, answers: false, ...o });
  it.each([
    { name: 'plain allow of a tool', t: codexTool, a: a({}), misfit: null },
    { name: 'deny of a question', t: claudeQuestion, a: a({ allow: false }), misfit: null },
    { name: 'always-allow of a Claude tool', t: claudeTool, a: a({ alwaysAllow: true }), misfit: null },
    { name: 'answers to a Claude question', t: claudeQuestion, a: a({ answers: true }), misfit: null },
    { name: 'always-allow with deny', t: claudeTool, a: a({ allow: false, alwaysAllow: true }), misfit: 'always_allow_not_allow' },
    { name: 'always-allow where not offered', t: codexTool, a: a({ alwaysAllow: true }), misfit: 'always_allow_not_offered' },
    { name: 'always-allow of a question', t: claudeQuestion, a: a({ alwaysAllow: true }), misfit: 'always_allow_not_offered' },
    { name: 'answers with deny', t: claudeQuestion, a: a({ allow: false, answers: true }), misfit: 'answers_need_allow' },
    { name: 'answers to a tool', t: claudeTool, a: a({ answers: true }), misfit: 'answers_not_taken' },
    { name: 'answers with always-allow', t: claudeTool, a: a({ alwaysAllow: true, answers: true }), misfit: 'answers_not_taken' },
  ] as const)('$name → $misfit', ({ t, a: shape, misfit }) => {
    expect(answerFits(t, shape)).toBe(misfit);
  });
});

describe('promptStateAfter (how the agent saw a request end → the row)', () => {
  const end = (outcome: PromptEnd['outcome'], answerId?: string): PromptEnd => ({ requestId: REQUEST, outcome, at: 1, ...(answerId ? { answerId } : {}) });
  const table: { row: PromptState; answerId: string | null; e: PromptEnd; to: PromptState | null }[] = [
    { row: 'answered', answerId: 'a1', e: end('answered', 'a1'), to: 'delivered' },
    { row: 'answered', answerId: 'a1', e: end('answered', 'a2'), to: null },
    { row: 'pending', answerId: null, e: end('answered', 'a1'), to: null },
    { row: 'pending', answerId: null, e: end('hook_gone'), to: 'answered_at_computer' },
    { row: 'answered', answerId: 'a1', e: end('hook_gone'), to: 'answered_at_computer' },
    { row: 'pending', answerId: null, e: end('expired'), to: 'waiting_at_computer' },
    { row: 'pending', answerId: null, e: end('lost_on_restart'), to: 'waiting_at_computer' },
    { row: 'waiting_at_computer', answerId: null, e: end('expired'), to: null },
    { row: 'waiting_at_computer', answerId: null, e: end('hook_gone'), to: 'answered_at_computer' },
    ...(['delivered', 'answered_at_computer', 'ended'] as const).flatMap((row) =>
      (['answered', 'hook_gone', 'expired', 'lost_on_restart'] as const).map((o) => ({
        row,
        answerId: 'a1',
        e: end(o, o === 'answered' ? 'a1' : undefined),
        to: null,
      })),
    ),
  ];
  it.each(table)('$row + $e.outcome → $to', ({ row, answerId, e, to }) => {
    expect(promptStateAfter(row, answerId, e)).toBe(to);
  });
});
