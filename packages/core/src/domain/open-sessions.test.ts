import { describe, expect, it } from 'vitest';
import { newestActivityFirst, openSessionGroup } from './open-sessions.ts';

describe('open sessions as home shows them', () => {
  it('groups states the way a person reads them; a question waits even while the turn runs', () => {
    expect(openSessionGroup({ state: 'Running', promptWait: null })).toBe('working');
    expect(openSessionGroup({ state: 'Stopping', promptWait: null })).toBe('working');
    expect(openSessionGroup({ state: 'Running', promptWait: 'answer' })).toBe('waiting');
    expect(openSessionGroup({ state: 'Ready', promptWait: null })).toBe('ready');
    expect(openSessionGroup({ state: 'AwaitingRecovery', promptWait: null })).toBe('waiting');
  });

  it('orders by the newest of step, message and start; equal times by id', () => {
    const d = (m: number) => new Date(m * 60_000);
    const rows = [
      { id: 'a', createdAt: d(0), lastActivityAt: null, activityAt: null },
      { id: 'b', createdAt: d(0), lastActivityAt: d(5), activityAt: null },
      { id: 'c', createdAt: d(1), lastActivityAt: d(2), activityAt: d(9) },
      { id: 'd', createdAt: d(0), lastActivityAt: null, activityAt: null },
    ];
    expect(newestActivityFirst(rows).map((r) => r.id)).toEqual(['c', 'b', 'd', 'a']);
  });
});
