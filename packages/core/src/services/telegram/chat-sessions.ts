import type { Db } from '../../db/client.ts';
import { getActiveSessionId } from '../../db/repos/sessions.ts';
import { getSessionView, OPEN_SESSION_STATES, type SessionView } from '../../db/repos/telegram-views.ts';

const OPEN = new Set<string>(OPEN_SESSION_STATES);

/** The session a chat remembers as active on a node, in whatever state it is now (closed ones included). */
export async function rememberedSessionView(db: Db, o: { chatId: bigint; nodeId: string }): Promise<SessionView | null> {
  const id = await getActiveSessionId(db, o.chatId, o.nodeId);
  return id ? getSessionView(db, id) : null;
}

/** The chat's active session on a node: the remembered one while it is open, else none. */
export async function activeSessionView(db: Db, o: { chatId: bigint; nodeId: string }): Promise<SessionView | null> {
  const s = await rememberedSessionView(db, o);
  return s && OPEN.has(s.state) ? s : null;
}
