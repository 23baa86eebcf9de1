import { describe, expect, it } from 'vitest';
import { unavailableModes } from './unavailable-modes.ts';

describe('modes the machine cannot start', () => {
  it('Claude bypassPermissions is unavailable for root unless the user declared a sandbox', () => {
    expect(unavailableModes({}, 0)).toEqual(['claude:bypassPermissions']);
    expect(unavailableModes({ IS_SANDBOX: '1' }, 0)).toEqual([]);
    expect(unavailableModes({}, 1000)).toEqual([]);
  });
});
