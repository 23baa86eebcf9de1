import { isAppError } from '@bria/core/domain';
import type { BotContext } from '../context.ts';
import { showCard } from '../card/card-service.ts';
import { escapeHtml } from '../render/index.ts';
import { getActiveSession, type ResumeReturn, setActiveSession, updateChat } from '../store/chats.ts';
import { getSessionView, OPEN_STATES } from '../store/sessions-read.ts';

const OPEN = new Set<string>(OPEN_STATES);

/**
 * Resume pressed (in /archive or in the /new flow's offer). The resumed session becomes the node's
 * active one at once (messages typed while it resumes are queued for it). A resume that cannot even
 * be asked for (computer offline, no native id) gives the one notice here; one that fails on the
 * node gives it through the engine's `resume_failed` outbox row (see outbox/deliver.ts).
 */
export async function resumeFromChat(ctx: BotContext, sessionId: string): Promise<void> {
  const { deps, chatId, t } = ctx.bria;
  const s = await getSessionView(deps.db, sessionId);
  // The callback is answered by the caller; an id that names no session is told as an old button.
  if (!s) return void (await ctx.reply(t('button.stale')));
  const previous = await getActiveSession(deps.db, chatId, s.nodeId);
  // Recorded before the resume is asked for, so even a failure reported at once finds the way back.
  const back: ResumeReturn | null = previous && previous !== sessionId ? { kind: 'resumeReturn', sessionId, nodeId: s.nodeId, previousSessionId: previous } : null;
  if (back) await updateChat(deps.db, chatId, { flow: back });
  await setActiveSession(deps.db, chatId, s.nodeId, sessionId);
  try {
    await deps.actions.resumeSession({ chatId, sessionId });
  } catch (error) {
    // Nothing was started: the chat stays where it was.
    const now = await getSessionView(deps.db, sessionId);
    const open = now !== null && OPEN.has(now.state);
    if (!open) {
      await setActiveSession(deps.db, chatId, s.nodeId, previous);
      if (back) await updateChat(deps.db, chatId, { flow: null });
    }
    if (!isAppError(error)) throw error;
    const cause = error.code === 'NODE_OFFLINE' ? t('resume.causeOffline') : /native id/.test(error.message) ? t('resume.causeNoNativeId') : undefined;
    if (cause) return void (await ctx.reply(escapeHtml(t('resume.failed', { cause })), { parse_mode: 'HTML' }));
    // Pressed twice, or resumed from elsewhere meanwhile: an open session is simply shown.
    if (!open) throw error;
  }
  if (back) ctx.bria.chat.flow = back;
  await showCard({ api: ctx.api, db: deps.db, chatId, sessionId, fresh: true });
}
