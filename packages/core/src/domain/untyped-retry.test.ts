import { describe, expect, it } from 'vitest';
import { untypedRetryDelay, untypedWait } from './retry-schedule.ts';

describe('wait after a typed: false answer', () => {
  it('waits 1, 2, 4, 8, 15 s by refusal at one session version, then every 15 s', () => {
    expect(Array.from({ length: 8 }, (_, i) => untypedRetryDelay(i + 1) / 1000)).toEqual([1, 2, 4, 8, 15, 15, 15, 15]);
    expect(untypedRetryDelay(0)).toBe(1000);
  });

  it.each([
    { name: 'first refusal by the current observer', o: { commandGeneration: 3, observerGeneration: 3, earlier: 0 }, out: { refusals: 1, waitMs: 1000 } },
    { name: 'third refusal at the same version', o: { commandGeneration: 3, observerGeneration: 3, earlier: 2 }, out: { refusals: 3, waitMs: 4000 } },
    {
      name: 'a command whose generation is unreadable counts as the current observer',
      o: { commandGeneration: null, observerGeneration: 3, earlier: 5 },
      out: { refusals: 6, waitMs: 15_000 },
    },
    {
      name: 'an answer about an older observer: no wait, nothing counted',
      o: { commandGeneration: 2, observerGeneration: 3, earlier: 4 },
      out: { refusals: 0, waitMs: 0 },
    },
  ])('$name', ({ o, out }) => {
    expect(untypedWait(o)).toEqual(out);
  });
});
