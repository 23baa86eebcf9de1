import { GrammyError, HttpError } from 'grammy';

/**
 * What a failed Bot API call means for the outbox. `rate_limited`: wait exactly `retry_after`.
 * `transient`: 5xx, network errors and timeouts, retried with backoff (a timeout may have reached
 * Telegram: that is the one window where a retry can show a part twice). `permanent`: never retried.
 */
export type SendFailure = { kind: 'rate_limited'; retryAfterMs: number } | { kind: 'transient'; reason: string } | { kind: 'permanent'; reason: string };

export function classifySendError(error: unknown): SendFailure {
  if (error instanceof GrammyError) {
    if (error.error_code === 429) return { kind: 'rate_limited', retryAfterMs: Math.max(1, error.parameters.retry_after ?? 1) * 1000 };
    if (error.error_code >= 500) return { kind: 'transient', reason: `http ${error.error_code}` };
    return { kind: 'permanent', reason: `${error.error_code} ${error.description}` };
  }
  if (error instanceof HttpError) return { kind: 'transient', reason: 'network' };
  return { kind: 'transient', reason: error instanceof Error ? error.name : 'unknown' };
}

/** 1 s, 2 s, 4 s … capped at 60 s; a small jitter keeps several bots from retrying in step. */
export function backoffMs(attempt: number, jitter = Math.random()): number {
  const base = Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.9 + 0.2 * jitter));
}
