import { useEffect, useRef, useState } from 'react';

/**
 * One timer for the whole page. Every ticking text (relative times, lifetimes, running steps)
 * subscribes with a function that says how long until it must be redrawn; the clock sleeps until
 * the soonest of those and wakes only the subscribers that are due, so a list of a hundred times
 * holds one timer, not a hundred intervals.
 */
interface Subscriber {
  due: number;
  next: (now: number) => number;
  notify: (now: number) => void;
}

/** Redraws closer together than this are merged: a burst of due times costs one wake-up. */
const SLACK_MS = 50;
/** setTimeout's limit; longer waits are split. */
const MAX_WAIT_MS = 2_147_483_647;

const subscribers = new Set<Subscriber>();
let timer: ReturnType<typeof setTimeout> | undefined;
let timerAt = Number.POSITIVE_INFINITY;

function arm(): void {
  let soonest = Number.POSITIVE_INFINITY;
  for (const s of subscribers) soonest = Math.min(soonest, s.due);
  if (soonest === timerAt) return;
  clearTimeout(timer);
  timer = undefined;
  timerAt = soonest;
  if (Number.isFinite(soonest)) timer = setTimeout(fire, Math.min(MAX_WAIT_MS, Math.max(0, soonest - Date.now())));
}

function fire(): void {
  timer = undefined;
  timerAt = Number.POSITIVE_INFINITY;
  const now = Date.now();
  for (const s of subscribers) {
    if (s.due > now + SLACK_MS) continue;
    s.due = now + Math.max(SLACK_MS, s.next(now));
    s.notify(now);
  }
  arm();
}

/** Calls `notify` each time the delay `next(now)` has passed; returns the unsubscribe. */
export function subscribeClock(next: (now: number) => number, notify: (now: number) => void): () => void {
  const now = Date.now();
  const s: Subscriber = { due: now + Math.max(SLACK_MS, next(now)), next, notify };
  subscribers.add(s);
  arm();
  return () => {
    subscribers.delete(s);
    arm();
  };
}

/** How many timers the clock holds (0 or 1): for tests. */
export const clockTimers = () => (timer === undefined ? 0 : 1);

/** Every `ms`, on the boundaries of `ms` (all "every 30 s" texts are redrawn together). */
export const every = (ms: number) => (now: number) => ms - (now % ms);

/**
 * The current time, re-read when `next` says the shown text changes. `key`: what the schedule
 * depends on (the timestamp shown); a new key schedules afresh.
 */
export function useClock(next: (now: number) => number, key: string | number | null): number {
  const [now, setNow] = useState(() => Date.now());
  const latest = useRef(next);
  latest.current = next;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is what the schedule depends on; `next` is read through the ref
  useEffect(() => {
    setNow(Date.now());
    return subscribeClock((t) => latest.current(t), setNow);
  }, [key]);
  return now;
}
