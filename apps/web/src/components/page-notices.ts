import type { SessionItem } from './types.ts';

// A short notice on the page ("Requested.", "Stored in the queue (#2).") announces one thing; it
// goes away once that thing is over, so the page never says something that stopped being true.

/** A lifecycle notice is about the session as it was when the press was answered (`version`). */
export function lifecycleNoticeCurrent(notice: { version: number } | null, session: Pick<SessionItem, 'version'>): boolean {
  return notice !== null && session.version <= notice.version;
}

/** "Stored in the queue" holds while the message waits in the queue (not yet handed to the CLI). */
export function queueNoticeCurrent(messageId: string | null, items: readonly { id: string; status: string }[] | undefined): boolean {
  if (messageId === null) return false;
  const item = items?.find((m) => m.id === messageId);
  return item === undefined || item.status === 'pending' || item.status === 'leased';
}
