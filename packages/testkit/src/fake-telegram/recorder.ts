import type { Fault } from './faults.ts';

export type CallOutcome = 'answered' | 'dropped' | 'timeout' | 'client-gone';

export interface CallRecord {
  method: string;
  params: Record<string, unknown>;
  /** Arrival time, ms since the epoch. */
  at: number;
  durationMs?: number;
  status?: number;
  /** The JSON body sent back; absent while in flight and when the connection was cut. */
  response?: unknown;
  outcome?: CallOutcome;
  fault?: Fault;
}

interface Waiter {
  method: string | undefined;
  predicate: (r: CallRecord) => boolean;
  resolve: (r: CallRecord) => void;
}

const same = (a: string | undefined, b: string): boolean => a === undefined || a.toLowerCase() === b.toLowerCase();

/** Every call the fake received, in arrival order, and waiters for calls to come. */
export class Recorder {
  private readonly records: CallRecord[] = [];
  private waiters: Waiter[] = [];
  private readonly listeners = new Set<(r: CallRecord) => void>();

  /** Called after every finished call; returns the unsubscribe function. */
  subscribe(listener: (r: CallRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(method: string, at: number): CallRecord {
    const record: CallRecord = { method, params: {}, at };
    this.records.push(record);
    return record;
  }

  finish(record: CallRecord, outcome: CallOutcome, at: number, status?: number, response?: unknown): void {
    if (record.outcome) return;
    record.outcome = outcome;
    record.durationMs = at - record.at;
    if (status !== undefined) record.status = status;
    if (response !== undefined) record.response = response;
    const ready = this.waiters.filter((w) => same(w.method, record.method) && w.predicate(record));
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve(record);
    for (const listener of [...this.listeners]) listener(record);
  }

  list(method?: string): CallRecord[] {
    return this.records.filter((r) => same(method, r.method));
  }

  /** Resolves with the first finished call (already recorded or still to come) matching method and predicate. */
  waitFor(method: string | undefined, predicate: (r: CallRecord) => boolean, timeoutMs: number): Promise<CallRecord> {
    const done = this.records.find((r) => r.outcome && same(method, r.method) && predicate(r));
    if (done) return Promise.resolve(done);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        const seen = this.list(method).length;
        reject(new Error(`fake-telegram: no matching ${method ?? 'call'} within ${timeoutMs} ms (${seen} calls of it seen)`));
      }, timeoutMs);
      const waiter: Waiter = {
        method,
        predicate,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      };
      this.waiters.push(waiter);
    });
  }
}
