import type { Logger } from '../log.ts';
import type { Clock } from './step/step-context.ts';

/** One agent fact the engine set aside (recorded as `refused:<type>` evidence). */
export interface Refusal {
  sessionId: string;
  nodeId: string;
  /** The agent event's type (`turn_started`, …). */
  type: string;
  seq: number;
  /** Why: `STALE_GENERATION`, `ILLEGAL_TRANSITION`, `NO_MATCHING_REQUEST`, … */
  code: string;
}

/** How long repeats of one kind are counted before their summary line. */
export const REFUSAL_WINDOW_MS = 10_000;

/** Readable words for the codes a person meets most; others read as the code itself. */
const CODE_WORDS: Record<string, string> = {
  STALE_GENERATION: 'outdated: from an earlier run of the CLI',
  ILLEGAL_TRANSITION: 'does not fit the session state',
  GUARD_REJECTED: 'does not fit the session state',
  NOT_LEASED: 'no message was being handed over',
  NO_MATCHING_REQUEST: 'no matching request',
};

const short = (id: string) => id.slice(0, 8);

interface Window {
  first: Refusal;
  startedAt: number;
  /** Repeats after the first one, which was logged at once. */
  more: number;
}

/**
 * The terminal's view of refused agent facts: after a warm restart an agent can replay a hundred
 * stale reports of one session, and one JSON line each buried everything else. Per (session, code)
 * the first refusal is logged at once as one readable line; repeats within `windowMs` are only
 * counted, and `flush` (called by the engine's timer loop) logs one summary line with the count.
 */
export class RefusalLog {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs: number;

  constructor(private readonly o: { log: Pick<Logger, 'info'>; clock: Clock; windowMs?: number }) {
    this.windowMs = o.windowMs ?? REFUSAL_WINDOW_MS;
  }

  note(r: Refusal): void {
    const now = this.o.clock.now().getTime();
    const key = `${r.sessionId}\u0000${r.code}`;
    const open = this.windows.get(key);
    if (open && now - open.startedAt < this.windowMs) {
      open.more += 1;
      return;
    }
    if (open) this.summary(key, open, now);
    this.windows.set(key, { first: r, startedAt: now, more: 0 });
    const why = CODE_WORDS[r.code];
    this.o.log.info(
      { sessionId: r.sessionId, nodeId: r.nodeId, seq: r.seq, type: r.type, code: r.code },
      `engine.event_refused: set aside one ${r.type} report from session ${short(r.sessionId)} (${why ? `${r.code}, ${why}` : r.code})`,
    );
  }

  /** Logs the summary of every window that is over (`all`: of every open window, at shutdown). */
  flush(o: { all?: boolean } = {}): void {
    const now = this.o.clock.now().getTime();
    for (const [key, w] of this.windows) {
      if (o.all || now - w.startedAt >= this.windowMs) this.summary(key, w, now);
    }
  }

  private summary(key: string, w: Window, now: number): void {
    this.windows.delete(key);
    if (w.more === 0) return;
    const seconds = Math.max(1, Math.round((now - w.startedAt) / 1000));
    const noun = w.more === 1 ? 'report' : 'reports';
    this.o.log.info(
      { sessionId: w.first.sessionId, nodeId: w.first.nodeId, code: w.first.code, count: w.more },
      `engine.event_refused: set aside ${w.more} more ${w.first.code} ${noun} from session ${short(w.first.sessionId)} in the last ${seconds} s`,
    );
  }
}
