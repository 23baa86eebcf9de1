import { OPEN_SESSION_GROUPS, type OpenSessionGroup } from '@bria/core/domain';
import type { Executor, SessionItem } from './types.ts';

/** The home list's state filter: what a person looks for (the server groups: domain/open-sessions.ts). */
export const STATE_GROUPS = OPEN_SESSION_GROUPS;
export type StateGroup = OpenSessionGroup;

/** A row of `sessions.listAllOpen`: a session with what it waits for and its computer. */
export type OpenSession = SessionItem & { promptWait: 'answer' | 'computer' | null; nodeName: string; nodeOnline: boolean };
/** Empty strings mean "all"; the server filters and orders (`sessions.listAllOpen`). */
export interface SessionFilter {
  nodeId: string;
  executor: Executor | '';
  group: StateGroup | '';
}

/** When the session last did something: its current step, else its last message, else its start. */
export const lastSeenAt = (s: Pick<SessionItem, 'activityAt' | 'lastActivityAt' | 'createdAt'>): string =>
  [s.activityAt, s.lastActivityAt, s.createdAt]
    .filter((d): d is string => d !== null)
    .sort()
    .at(-1) ?? s.createdAt;
