import type { HostEvent } from './types.ts';

type Listener = (e: HostEvent) => void;

/** Typed event stream of a SessionHost: listeners plus a replayable log for late waiters (without activity). */
export class HostEvents {
  readonly events: HostEvent[] = [];
  private readonly listeners = new Set<Listener>();

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected emit(e: HostEvent): void {
    // Activity is a stream (a busy session sends it after every journal batch, items up to several
    // KiB each): kept in the log it would grow with the session. Only listeners get it.
    if (e.type !== 'activity') this.events.push(e);
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A failing consumer must not stop the observation of the CLI.
      }
    }
  }

  /** First event (already emitted or future) that matches. */
  waitFor<T extends HostEvent>(pred: (e: HostEvent) => e is T, ms?: number): Promise<T>;
  waitFor(pred: (e: HostEvent) => boolean, ms?: number): Promise<HostEvent>;
  waitFor(pred: (e: HostEvent) => boolean, ms = 30_000): Promise<HostEvent> {
    const past = this.events.find(pred);
    if (past) return Promise.resolve(past);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no matching event within ${ms} ms; saw: ${this.events.map((x) => x.type).join(',')}`));
      }, ms);
      const off = this.on((e) => {
        if (!pred(e)) return;
        clearTimeout(timer);
        off();
        resolve(e);
      });
    });
  }
}
