import type { SessionState } from './session-types.ts';

/**
 * The home list's state groups: what a person looks for, not the machine's states. Working = a
 * turn runs; waiting = it needs someone (an answer, its computer, a start or recovery); ready = idle.
 */
export const OPEN_SESSION_GROUPS = ['working', 'ready', 'waiting'] as const;
export type OpenSessionGroup = (typeof OPEN_SESSION_GROUPS)[number];

const WORKING: readonly SessionState[] = ['Running', 'Stopping', 'ClosingAfterWork'];

export function openSessionGroup(s: { state: SessionState; promptWait: 'answer' | 'computer' | null; desk?: unknown }): OpenSessionGroup {
  // Its CLI runs in a terminal at the computer (domain/handoff.ts): working there, not waiting on Bria.
  if (s.desk) return 'working';
  if (s.promptWait) return 'waiting';
  if (WORKING.includes(s.state)) return 'working';
  return s.state === 'Ready' ? 'ready' : 'waiting';
}

interface Seen {
  id: string;
  activityAt: Date | null;
  lastActivityAt: Date | null;
  createdAt: Date;
}

/** When a session last did something: its current step, else its last message, else its start. */
export const lastSeenTime = (s: Omit<Seen, 'id'>): number => Math.max(s.createdAt.getTime(), s.activityAt?.getTime() ?? 0, s.lastActivityAt?.getTime() ?? 0);

/** Newest activity first; ties by id (descending), so the order is stable between reloads. */
export function newestActivityFirst<T extends Seen>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => lastSeenTime(b) - lastSeenTime(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
