import { isAppError } from '@bria/core/domain';
import type { BotContext } from '../context.ts';
import { showCard } from '../card/card-service.ts';
import { enqueueBotRow, openResumeStatus } from '../outbox/outbox-store.ts';
import { getActiveSession, type ResumeReturn, setActiveSession, updateChat } from '../store/chats.ts';
import { getSessionView, OPEN_STATES, type SessionView } from '../store/sessions-read.ts';

const OPEN = new Set<string>(OPEN_STATES);

const titleOf = (s: SessionView) => (s.title ?? s.firstPrompt ?? s.folder).replace(/\s+/g, ' ').slice(0, 80);

/**
 * Queues the plain "Resuming <title>…" status (SPEC §3: a failed resume creates no card, so none is
 * shown before the resume succeeded). It goes through the outbox, ahead of every row the engine
 * writes about this resume, so the engine's card update turns it into the card and its
 * `resume_failed` turns it into the one notice (outbox/deliver.ts), whichever process sends them.
 * The key holds the session version at the press: two presses of the same archived session give one
 * status; a later attempt (the version moved on) gets its own.
 */
async function queueStatus(ctx: BotContext, s: SessionView): Promise<string> {
  const { deps, chatId } = ctx.bria;
  const key = `resume_status:${chatId}:${s.id}:${s.version}`;
  await enqueueBotRow(deps.db, { dedupeKey: key, kind: 'resume_status', chatId, sessionId: s.id, payload: { kind: 'resume_status', sessionId: s.id, nodeId: s.nodeId, title: titleOf(s) } });
  deps.wakeOutbox?.();
  return key;
}

/**
 * Resume pressed (in /archive or in the /new flow's offer). The resumed session becomes the node's
 * active one at once (messages typed while it resumes are queued for it), but no card is posted
 * until it has resumed: the chat shows a status message instead. A resume that cannot even be asked
 * for (computer offline, no native id, an unexpected error) turns that status into the one notice
 * through a `resume_failed` row of the bot's own; one that fails on the node does so through the
 * engine's `resume_failed` row.
 */
export async function resumeFromChat(ctx: BotContext, sessionId: string): Promise<void> {
  const { deps, chatId, t } = ctx.bria;
  const s = await getSessionView(deps.db, sessionId);
  // The callback is answered by the caller; an id that names no session is told as an old button.
  if (!s) return void (await ctx.reply(t('button.stale')));
  if (s.state === 'Resuming') {
    // Pressed again, or resumed from the dashboard: this chat follows it through a status of its own.
    await setActiveSession(deps.db, chatId, s.nodeId, sessionId);
    if (!(await openResumeStatus(deps.db, chatId, sessionId))) await queueStatus(ctx, s);
    return;
  }
  if (OPEN.has(s.state)) {
    // Already resumed (pressed twice, or from elsewhere): an open session is simply shown.
    await setActiveSession(deps.db, chatId, s.nodeId, sessionId);
    return void (await showCard({ api: ctx.api, db: deps.db, chatId, sessionId, fresh: true }));
  }
  const previous = await getActiveSession(deps.db, chatId, s.nodeId);
  // Recorded before the resume is asked for, so even a failure reported at once finds the way back.
  const back: ResumeReturn | null = previous && previous !== sessionId ? { kind: 'resumeReturn', sessionId, nodeId: s.nodeId, previousSessionId: previous } : null;
  if (back) await updateChat(deps.db, chatId, { flow: back });
  await setActiveSession(deps.db, chatId, s.nodeId, sessionId);
  const statusKey = await queueStatus(ctx, s);
  if (back) ctx.bria.chat.flow = back;
  try {
    await deps.actions.resumeSession({ chatId, sessionId });
  } catch (error) {
    const now = await getSessionView(deps.db, sessionId);
    // Resumed from elsewhere in the meantime: the engine's rows settle the status as for this press.
    if (now !== null && OPEN.has(now.state)) return;
    // Nothing was started: the chat stays where it was, and the status becomes the one notice.
    await setActiveSession(deps.db, chatId, s.nodeId, previous);
    if (back) {
      await updateChat(deps.db, chatId, { flow: null });
      ctx.bria.chat.flow = null;
    }
    let cause = t('resume.causeUnexpected');
    if (isAppError(error) && error.code === 'NODE_OFFLINE') cause = t('resume.causeOffline');
    else if (isAppError(error) && /native id/.test(error.message)) cause = t('resume.causeNoNativeId');
    else deps.log.error({ sessionId, code: isAppError(error) ? error.code : undefined, err: error instanceof Error ? error.message.slice(0, 200) : 'unknown' }, 'resume could not be asked for');
    await enqueueBotRow(deps.db, { dedupeKey: `resume_refused:${statusKey}`, kind: 'resume_failed', chatId, sessionId, payload: { kind: 'resume_failed', sessionId, nodeId: s.nodeId, cause } });
    deps.wakeOutbox?.();
  }
}
