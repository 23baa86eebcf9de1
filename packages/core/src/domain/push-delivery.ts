/**
 * What the push sender does with a push service's answer (issue 32). Pure: the status (or a
 * network failure, `null`) and the attempt count come in.
 *  - 2xx: `sent`.
 *  - 404 / 410: the subscription is gone (the browser unsubscribed or the service expired it):
 *    `gone`, the subscription is removed with its pending pushes.
 *  - 429, 5xx, a network error or timeout: `retry` after `pushRetryDelayMs`, until
 *    `PUSH_MAX_ATTEMPTS`; then `failed`.
 *  - any other answer (400 bad request, 401/403 VAPID refused, 413 too large): `failed` at once,
 *    since sending the same bytes again gets the same answer.
 */
export type PushSendOutcome = 'sent' | 'gone' | 'retry' | 'failed';

export const PUSH_MAX_ATTEMPTS = 6;

export function pushSendOutcome(status: number | null, attempts: number): PushSendOutcome {
  if (status !== null && status >= 200 && status <= 299) return 'sent';
  if (status === 404 || status === 410) return 'gone';
  const transient = status === null || status === 429 || status >= 500;
  if (!transient) return 'failed';
  return attempts >= PUSH_MAX_ATTEMPTS ? 'failed' : 'retry';
}

/** The fixed backoff table (attempt n waited on before attempt n+1), ms: 1 s, 2 s, 4 s, 8 s, 16 s, then 5 min cap. */
export const PUSH_RETRY_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 300_000] as const;

/**
 * The wait after the `attempts`-th failed attempt. A push service's `Retry-After` (seconds) is
 * honoured when it asks for longer, up to one hour.
 */
export function pushRetryDelayMs(attempts: number, retryAfterSeconds: number | null = null): number {
  const table = PUSH_RETRY_MS[Math.min(Math.max(attempts, 1), PUSH_RETRY_MS.length) - 1] ?? PUSH_RETRY_MS[0];
  const asked = retryAfterSeconds !== null && Number.isFinite(retryAfterSeconds) ? Math.min(retryAfterSeconds, 3600) * 1000 : 0;
  return Math.max(table, asked);
}
