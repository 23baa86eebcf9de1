import { describe, expect, it } from 'vitest';
import type { TurnOutcome } from '../journal/types.ts';
import { turnOutcomeEvents } from './turn-outcome-events.ts';

const ev = { offset: 10, end: 20, recordIds: ['r1'] };
const usage = { inputTokens: 5, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, model: 'mock-model' };

describe('turnOutcomeEvents', () => {
  it.each<[string, TurnOutcome, string | null, unknown]>([
    ['pending: nothing yet', { state: 'pending' }, null, null],
    [
      'completed with usage: usage, final, completed',
      { state: 'completed', finalText: 'done', usage, evidence: ev },
      null,
      [
        { type: 'usage', messageId: 'm', usage, evidence: ev },
        { type: 'final', messageId: 'm', text: 'done', evidence: ev },
        { type: 'completed', messageId: 'm', evidence: ev },
      ],
    ],
    [
      'completed without usage: final, completed',
      { state: 'completed', finalText: '', usage: null, evidence: ev },
      null,
      [
        { type: 'final', messageId: 'm', text: '', evidence: ev },
        { type: 'completed', messageId: 'm', evidence: ev },
      ],
    ],
    [
      'a follow-up: only completed, naming its main request',
      { state: 'completed', finalText: 'done', usage, evidence: ev },
      'main',
      [{ type: 'completed', messageId: 'm', evidence: { ...ev, followUpOf: 'main' } }],
    ],
    [
      'api error',
      { state: 'api_error', errorText: 'overloaded', evidence: ev },
      null,
      [{ type: 'api_error', messageId: 'm', errorText: 'overloaded', evidence: ev }],
    ],
    ['interrupted', { state: 'interrupted', reason: 'esc', evidence: ev }, 'main', [{ type: 'interrupted', messageId: 'm', reason: 'esc', evidence: ev }]],
    [
      'unknown: the records as evidence',
      { state: 'unknown', reason: 'two ends', evidence: [{ offset: 1, end: 2 }] },
      null,
      [{ type: 'unknown', messageId: 'm', reason: 'two ends', evidence: { records: [{ offset: 1, end: 2 }] } }],
    ],
  ])('%s', (_, outcome, followUpOf, expected) => {
    expect(turnOutcomeEvents(outcome, 'm', followUpOf)).toEqual(expected);
  });
});
