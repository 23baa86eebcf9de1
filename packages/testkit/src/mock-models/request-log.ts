import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MockRequest } from './types.ts';

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'proxy-authorization', 'cookie']);

export function safeHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || SECRET_HEADERS.has(name.toLowerCase())) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export interface RequestLog {
  entries: MockRequest[];
  add(entry: MockRequest): void;
  /** Marks the entry done, writes its log line and wakes waiters. */
  finish(entry: MockRequest, clientClosed: boolean): void;
  userTexts(sessionId?: string): string[];
  waitFor(predicate: (r: MockRequest) => boolean, timeoutMs: number): Promise<MockRequest>;
}

export function createRequestLog(logFile?: string): RequestLog {
  const entries: MockRequest[] = [];
  const waiters = new Set<() => void>();
  if (logFile) mkdirSync(dirname(logFile), { recursive: true });
  const wake = () => {
    for (const w of [...waiters]) w();
  };

  return {
    entries,
    add(entry) {
      entries.push(entry);
      wake();
    },
    finish(entry, clientClosed) {
      if (entry.done) return;
      entry.done = true;
      entry.clientClosed = clientClosed;
      entry.durationMs = Date.now() - Date.parse(entry.time);
      // Written at the end so one line carries the outcome; sync keeps lines whole and ordered.
      if (logFile) {
        const { body: _body, ...line } = entry;
        appendFileSync(logFile, `${JSON.stringify(line)}\n`);
      }
      wake();
    },
    userTexts(sessionId) {
      return entries.filter((e) => e.kind === 'turn' && (sessionId === undefined || e.sessionId === sessionId)).map((e) => e.userText ?? '');
    },
    waitFor(predicate, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = entries.find(predicate);
          if (!hit) return;
          cleanup();
          resolve(hit);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching mock request within ${timeoutMs} ms (${entries.length} logged)`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}
