import { describe, expect, it } from 'vitest';
import { pluralForm } from '../i18n/index.ts';
import { type ActivityStep, contextPercent, currentActivity, supersedes, turnSummary } from './activity.ts';

const t0 = Date.parse('2026-12-04T10:00:00Z');
const s = (kind: string, i: number, extra: Partial<ActivityStep> = {}): ActivityStep => ({
  kind,
  toolName: null,
  subject: `f${i}`,
  status: 'ok',
  diffAdded: null,
  diffRemoved: null,
  startedAt: new Date(t0 + i * 1000),
  endedAt: null,
  ...extra,
});

describe('currentActivity', () => {
  it.each([
    ['no steps', [], null],
    ['one command', [s('command', 1)], { kind: 'command', steps: 1, reads: 0 }],
    ['text is not a step', [s('command', 1), s('text', 2)], { kind: 'text', steps: 1, reads: 0 }],
    ['a run of reads at the end is counted', [s('edit', 1), s('read', 2), s('read', 3), s('read', 4)], { kind: 'read', steps: 4, reads: 3 }],
    ['reads before another step are not', [s('read', 1), s('read', 2), s('command', 3)], { kind: 'command', steps: 3, reads: 0 }],
  ] as const)('%s', (_name, steps, expected) => {
    const a = currentActivity([...steps], 'turn');
    if (expected === null) expect(a).toBeNull();
    else expect(a).toMatchObject({ ...expected, nativeTurnId: 'turn', turnStartedAt: new Date(t0 + 1000).toISOString() });
  });

  it('an older report never replaces a newer one', () => {
    expect(supersedes({ at: '2026-12-04T10:00:02.000Z' }, { at: '2026-12-04T10:00:03.000Z' })).toBe(false);
    expect(supersedes({ at: '2026-12-04T10:00:03.000Z' }, { at: '2026-12-04T10:00:03.000Z' })).toBe(true);
    expect(supersedes({ at: '2026-12-04T10:00:01.000Z' }, null)).toBe(true);
  });
});

describe('turnSummary', () => {
  it('counts commands, distinct files changed successfully, tool calls, and the time from acceptance', () => {
    const steps = [
      s('command', 1),
      s('command', 2, { status: 'error' }),
      s('edit', 3, { subject: 'a.ts' }),
      s('edit', 4, { subject: 'a.ts' }),
      s('write', 5, { subject: 'b.ts' }),
      s('edit', 6, { subject: 'c.ts', status: 'error' }),
      s('text', 7),
      s('read', 8),
    ];
    expect(turnSummary(steps, new Date(t0), new Date(t0 + 180_000))).toEqual({ commands: 2, filesChanged: 2, steps: 7, ms: 180_000 });
    expect(turnSummary([], null, new Date(t0))).toEqual({ commands: 0, filesChanged: 0, steps: 0, ms: null });
  });
});

describe('contextPercent and plural forms', () => {
  it.each([
    [51_680, 258_400, 20],
    [199_999, 200_000, 100],
    [1, 3, 33.3],
    [10, null, null],
    [null, 10, null],
    [300, 200, 100],
  ] as const)('%s of %s → %s', (u, w, p) => {
    expect(contextPercent(u, w)).toBe(p);
  });
  it.each([
    [1, 'one', 'one'],
    [2, 'many', 'few'],
    [5, 'many', 'many'],
    [11, 'many', 'many'],
    [21, 'many', 'one'],
    [22, 'many', 'few'],
    [112, 'many', 'many'],
    [0, 'many', 'many'],
  ] as const)('%s: en %s, ru %s', (n, en, ru) => {
    expect(pluralForm('en', n)).toBe(en);
    expect(pluralForm('ru', n)).toBe(ru);
  });
});
