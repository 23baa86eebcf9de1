import { describe, expect, it } from 'vitest';
import { installedExecutors } from './installed-executors.ts';

const ALL = ['claude', 'codex'] as const;

describe('installedExecutors', () => {
  it.each([
    ['a computer whose agent never said hello: not reported', { agentVersion: null, missingExecutors: [] }, null],
    ['not reported even with a stale missing list', { agentVersion: null, missingExecutors: ['codex'] }, null],
    ['both CLIs ran', { agentVersion: '0.1.0', missingExecutors: [] }, ['claude', 'codex']],
    ['codex missing', { agentVersion: '0.1.0', missingExecutors: ['codex'] }, ['claude']],
    ['neither ran', { agentVersion: '0.1.0', missingExecutors: ['claude', 'codex'] }, []],
  ] as const)('%s', (_what, node, expected) => {
    expect(installedExecutors(ALL, node)).toEqual(expected);
  });
});
