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
