import { describe, expect, it } from 'vitest';
import { PUSH_MAX_ATTEMPTS, pushRetryDelayMs, pushSendOutcome } from './push-delivery.ts';

describe("what the push sender does with a push service's answer", () => {
  it.each([
    { status: 201, attempts: 1, want: 'sent' },
    { status: 200, attempts: 6, want: 'sent' },
    { status: 404, attempts: 1, want: 'gone' },
    { status: 410, attempts: 3, want: 'gone' },
    { status: 429, attempts: 1, want: 'retry' },
    { status: 500, attempts: 1, want: 'retry' },
    { status: 503, attempts: PUSH_MAX_ATTEMPTS - 1, want: 'retry' },
    { status: 503, attempts: PUSH_MAX_ATTEMPTS, want: 'failed' },
    { status: null, attempts: 1, want: 'retry' },
    { status: null, attempts: PUSH_MAX_ATTEMPTS, want: 'failed' },
    { status: 400, attempts: 1, want: 'failed' },
    { status: 401, attempts: 1, want: 'failed' },
    { status: 403, attempts: 1, want: 'failed' },
    { status: 413, attempts: 1, want: 'failed' },
    { status: 302, attempts: 1, want: 'failed' },
  ] as const)('$status after $attempts attempt(s) → $want', ({ status, attempts, want }) => {
    expect(pushSendOutcome(status, attempts)).toBe(want);
  });

  it('backs off 1, 2, 4, 8, 16 s, then 5 min; a longer Retry-After wins up to an hour', () => {
    expect([1, 2, 3, 4, 5, 6, 9].map((n) => pushRetryDelayMs(n))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 300_000, 300_000]);
    expect(pushRetryDelayMs(1, 30)).toBe(30_000);
    expect(pushRetryDelayMs(3, 1)).toBe(4_000);
    expect(pushRetryDelayMs(1, 100_000)).toBe(3_600_000);
  });
});
