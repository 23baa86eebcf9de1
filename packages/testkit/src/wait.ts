import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits for a condition the test can observe (a row, a file's content, a pane's text, a process),
 * checked every `everyMs` until it holds; `ms` is only the outer bound.
 */
export async function waitUntil<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 30_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await sleep(everyMs);
  }
}
