import { isWorking } from './activity-stream.ts';
import type { Executor, SessionItem } from './types.ts';

/** The home list's state filter: what a person looks for, not the machine's ten states. */
export const STATE_GROUPS = ['working', 'ready', 'waiting'] as const;
export type StateGroup = (typeof STATE_GROUPS)[number];

export type OpenSession = SessionItem & { promptWait: 'answer' | 'computer' | null; nodeName: string; nodeOnline: boolean };
export interface SessionFilter { nodeId: string; executor: Executor | ''; group: StateGroup | '' }

/** Working = a turn runs; waiting = it needs someone (an answer, its computer, a start or recovery); ready = idle. */
export function stateGroup(s: Pick<OpenSession, 'state' | 'promptWait'>): StateGroup {
  if (s.promptWait) return 'waiting';
  if (isWorking(s.state)) return 'working';
  return s.state === 'Ready' ? 'ready' : 'waiting';
}

/** When the session last did something: its current step, else its last message, else its start. */
export const lastSeenAt = (s: Pick<SessionItem, 'activityAt' | 'lastActivityAt' | 'createdAt'>): string =>
  [s.activityAt, s.lastActivityAt, s.createdAt].filter((d): d is string => d !== null).sort().at(-1) ?? s.createdAt;

/** The sessions the filters keep, newest activity first (ties by id, so the order is stable). */
export function filterSessions<T extends OpenSession>(items: readonly T[], f: SessionFilter): T[] {
  return items
    .filter((s) => (!f.nodeId || s.nodeId === f.nodeId) && (!f.executor || s.executor === f.executor) && (!f.group || stateGroup(s) === f.group))
    .sort((a, b) => lastSeenAt(b).localeCompare(lastSeenAt(a)) || b.id.localeCompare(a.id));
}
