import { describe, expect, it } from 'vitest';
import { filterSessions, lastSeenAt, type OpenSession, stateGroup } from './session-filters.ts';

const s = (id: string, over: Partial<OpenSession>): OpenSession => ({
  id, nodeId: 'n1', nodeName: 'one', nodeOnline: true, executor: 'claude', state: 'Ready', promptWait: null,
  createdAt: '2026-01-01T00:00:00.000Z', activityAt: null, lastActivityAt: null, ...over,
}) as OpenSession;

describe('home session filters', () => {
  it('groups states the way a person reads them', () => {
    expect(stateGroup(s('a', { state: 'Running' }))).toBe('working');
    expect(stateGroup(s('a', { state: 'Running', promptWait: 'answer' }))).toBe('waiting');
    expect(stateGroup(s('a', { state: 'Ready' }))).toBe('ready');
    expect(stateGroup(s('a', { state: 'AwaitingRecovery' }))).toBe('waiting');
    expect(stateGroup(s('a', { state: 'Stopping' }))).toBe('working');
  });

  it('sorts by the newest of step, message and start', () => {
    expect(lastSeenAt(s('a', { activityAt: '2026-01-03T00:00:00.000Z', lastActivityAt: '2026-01-02T00:00:00.000Z' }))).toBe('2026-01-03T00:00:00.000Z');
    const items = [
      s('old', {}),
      s('mid', { lastActivityAt: '2026-01-02T00:00:00.000Z' }),
      s('new', { activityAt: '2026-01-05T00:00:00.000Z', nodeId: 'n2', executor: 'codex', state: 'Running' }),
    ];
    expect(filterSessions(items, { nodeId: '', executor: '', group: '' }).map((x) => x.id)).toEqual(['new', 'mid', 'old']);
    expect(filterSessions(items, { nodeId: 'n1', executor: '', group: '' }).map((x) => x.id)).toEqual(['mid', 'old']);
    expect(filterSessions(items, { nodeId: '', executor: 'codex', group: '' }).map((x) => x.id)).toEqual(['new']);
    expect(filterSessions(items, { nodeId: '', executor: '', group: 'working' }).map((x) => x.id)).toEqual(['new']);
    expect(filterSessions(items, { nodeId: 'n2', executor: 'claude', group: '' })).toEqual([]);
  });
});
