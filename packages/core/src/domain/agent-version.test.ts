import { describe, expect, it } from 'vitest';
import { agentOutdated, packageVersion } from './agent-version.ts';

describe('agentOutdated', () => {
  it.each([
    ['0.1.0-1a2b3c4d', '0.1.0-1a2b3c4d', false],
    ['0.1.0-1a2b3c4d', '0.1.0-99999999', true],
    ['0.0.9-1a2b3c4d', '0.1.0-1a2b3c4d', true],
    // run from a checkout: only the package version says anything
    ['0.1.0', '0.1.0-1a2b3c4d', false],
    ['0.0.9', '0.1.0-1a2b3c4d', true],
    [null, '0.1.0-1a2b3c4d', false],
    ['0.0.9', null, false],
  ] as const)('agent %s, bundle %s → %s', (agent, bundle, outdated) => {
    expect(agentOutdated(agent, bundle)).toBe(outdated);
  });

  it('packageVersion strips only a content hash', () => {
    expect(packageVersion('0.1.0-1a2b3c4d')).toBe('0.1.0');
    expect(packageVersion('0.1.0-beta')).toBe('0.1.0-beta');
  });
});
