import { describe, expect, it } from 'vitest';
import { lastSeenAt } from './session-filters.ts';

// Filtering and ordering happen on the server: packages/core sessions.listAllOpen and domain/open-sessions.
describe('home rows', () => {
  it('show the newest of step, message and start as the last activity', () => {
    const base = { createdAt: '2026-01-01T00:00:00.000Z', activityAt: null, lastActivityAt: null };
    expect(lastSeenAt({ ...base, activityAt: '2026-01-03T00:00:00.000Z', lastActivityAt: '2026-01-02T00:00:00.000Z' })).toBe('2026-01-03T00:00:00.000Z');
    expect(lastSeenAt({ ...base, lastActivityAt: '2026-01-02T00:00:00.000Z' })).toBe('2026-01-02T00:00:00.000Z');
    expect(lastSeenAt(base)).toBe('2026-01-01T00:00:00.000Z');
  });
});
