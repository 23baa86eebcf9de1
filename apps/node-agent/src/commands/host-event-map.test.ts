import { parseSessionEvent } from '@bria/core/protocol';
import { describe, expect, it } from 'vitest';
import { ClaudeActivity } from '../journal/claude-activity.ts';
import { linesOf } from '../journal/fixture-lines.ts';
import { mapHostEvent } from './host-event-map.ts';
import type { SessionRecord } from './registry.ts';

const rec: SessionRecord = {
  sessionId: 's1',
  executor: 'claude',
  folder: '/w',
  generation: 1,
  identity: null,
  journalOffset: 0,
  turns: [],
  unconfirmed: [],
  status: 'live',
};

describe('mapHostEvent: activity', () => {
  it('sends what the journal parser drained as one protocol `activity` event each, as the hub parses it', () => {
    const parser = new ClaudeActivity();
    parser.ingest(linesOf(new URL('../journal/fixtures/claude-tools.jsonl', import.meta.url).pathname));
    const drained = parser.drain();
    expect(drained.length).toBeGreaterThan(0);
    for (const activity of drained) {
      const outs = mapHostEvent(rec, { type: 'activity', activity });
      expect(outs).toHaveLength(1);
      expect(outs[0]?.event).toBe('activity');
      const parsed = parseSessionEvent('activity', outs[0]?.payload);
      expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
      if (parsed.ok) expect(parsed.event.payload).toEqual(activity);
    }
  });
});

describe('mapHostEvent: usage and limits', () => {
  it('sends a turn’s tokens with the four kinds apart, its model and its turn, as the hub parses them', () => {
    const messageId = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    const withTurn: SessionRecord = { ...rec, turns: [{ messageId, nativeRef: 'rec-1', promptOffset: 0, done: false } as SessionRecord['turns'][number]] };
    const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 100, cacheWriteTokens: 20, model: 'claude-opus-4-8' };
    const [out] = mapHostEvent(withTurn, { type: 'usage', messageId, usage, evidence: {} });
    expect(out).toEqual({ event: 'usage', payload: { messageId, nativeTurnId: 'rec-1', ...usage } });
    expect(parseSessionEvent('usage', out?.payload).ok).toBe(true);
  });
  it('sends a limit state with the session’s CLI, as the hub parses it', () => {
    const limit = { reached: true, resetsAt: 1_800_000_000_000, windows: [{ name: 'primary', usedPercent: 100, windowMinutes: 300 }], at: 1_799_999_000_000 };
    const [out] = mapHostEvent({ ...rec, executor: 'codex' }, { type: 'limit', limit });
    expect(out).toEqual({ event: 'limit_state', payload: { executor: 'codex', ...limit } });
    const parsed = parseSessionEvent('limit_state', out?.payload);
    expect(parsed.ok).toBe(true);
  });
});
