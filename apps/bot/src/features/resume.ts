import { InlineKeyboard } from 'grammy';
import { isAppError } from '@bria/core/domain';
import { cb } from '../card/callback-data.ts';
import {
  enqueueBotRow,
  getActiveSessionId,
  getNodeView,
  getSessionView,
  lastEvidenceId,
  OPEN_SESSION_STATES,
  openResumeStatus,
  releaseBotRow,
  type ResumeReturn,
  rewriteBotRow,
  type SessionView,
  setActiveSessionId,
  updateChat,
  withdrawBotRow,
} from '@bria/core/services';
import type { BotContext } from '../context.ts';
import { queueCard, reply } from '../outbox/queue.ts';
import { sessionName } from '../render/session-name.ts';

const OPEN = new Set<string>(OPEN_SESSION_STATES);

const titleOf = (s: SessionView) => ((s.title ?? s.firstPrompt) ? sessionName(s, '') : s.folder);

/** How long a status waits for the press to finish asking core (the bot may die in between). */
export const STATUS_HOLD_MS = 30_000;

/**
 * Queues the plain "Resuming <title>…" status (SPEC §3: a failed resume creates no card, so none is
 * shown before the resume succeeded). It goes through the outbox, ahead of every row the engine
 * writes about this resume, so the engine's card update turns it into the card and its
 * `resume_failed` turns it into the one notice (outbox/deliver.ts), whichever process sends them.
 * The row is held back until the press
 * has asked core (`releaseBotRow`); if the bot dies before that, it becomes due after
 * STATUS_HOLD_MS and, finding the session untouched, is delivered as the notice instead.
 */
async function queueStatus(ctx: BotContext, s: SessionView, hold: boolean): Promise<string> {
  const { deps, chatId } = ctx.bria;
  // One status per press: the update id (a redelivered update gives the same key, so no second status).
  const key = `resume_status:${chatId}:${s.id}:${ctx.update.update_id}`;
  const now = new Date();
  await enqueueBotRow(deps.db, {
    dedupeKey: key,
    kind: 'resume_status',
    chatId,
    sessionId: s.id,
    now,
    dueAt: hold ? new Date(now.getTime() + STATUS_HOLD_MS) : now,
    // The newest transition record before the press: a resume_requested after it means core was asked.
    payload: { kind: 'resume_status', sessionId: s.id, nodeId: s.nodeId, title: titleOf(s), askedAfter: String(await lastEvidenceId(deps.db, s.id)) },
  });
  if (!hold) deps.wakeOutbox?.();
  return key;
}

/**
 * Resume pressed (in /archive or in the /new flow's offer). The resumed session becomes the node's
 * active one at once (messages typed while it resumes are queued for it), but no card is posted
 * until it has resumed: the chat shows a status message instead. A resume that cannot even be asked
 * for (computer offline, no native id, an unexpected error) turns the status row, still unsent, into
 * the one notice; one that fails on the node does so through the engine's `resume_failed` row.
 */
export async function resumeFromChat(ctx: BotContext, sessionId: string, o: { takeOverPid?: number; adoptPid?: number } = {}): Promise<void> {
  const { deps, chatId, t } = ctx.bria;
  const s = await getSessionView(deps.db, sessionId);
  // The callback is answered by the caller; an id that names no session is told as an old button.
  if (!s) return void (await reply(ctx, t('button.stale')));
  if (s.desk?.handoff === 'desk' && s.desk.pid !== null && o.takeOverPid === undefined && o.adoptPid === undefined && !OPEN.has(s.state)) {
    // It runs in a terminal at the computer: what "Continue here" does is said first, and only the
    // confirmation (naming that process) takes it over. Resume never starts a second CLI beside it.
    const node = await getNodeView(deps.db, s.nodeId);
    const kb = new InlineKeyboard().text(t('desk.confirm'), cb.encode({ a: 'resume', gen: ctx.bria.chat.cardGeneration, sessionId, arg: `d${s.desk.pid}` }));
    // In a tmux pane of the user's own it can also be adopted where it runs, never restarted.
    if (s.desk.inTmux) kb.row().text(t('desk.adoptConfirm'), cb.encode({ a: 'resume', gen: ctx.bria.chat.cardGeneration, sessionId, arg: `p${s.desk.pid}` }));
    const info = { title: titleOf(s), node: node?.name ?? '', pid: s.desk.pid, command: (s.desk.command ?? '').slice(0, 120) };
    const text = s.desk.inTmux ? `${t('desk.explain', info)}\n\n${t('desk.adoptExplain')}` : t('desk.explain', info);
    return void (await reply(ctx, text, { keyboard: kb }));
  }
  if (s.state === 'Resuming') {
    // Pressed again, or resumed from the dashboard: this chat follows it through a status of its own.
    await setActiveSessionId(deps.db, chatId, s.nodeId, sessionId);
    if (!(await openResumeStatus(deps.db, chatId, sessionId))) await queueStatus(ctx, s, false);
    return;
  }
  if (OPEN.has(s.state)) {
    // Already resumed (pressed twice, or from elsewhere): an open session is simply shown.
    await setActiveSessionId(deps.db, chatId, s.nodeId, sessionId);
    return void (await queueCard(ctx, { sessionId, fresh: true }));
  }
  const previous = await getActiveSessionId(deps.db, chatId, s.nodeId);
  // Recorded before the resume is asked for, so even a failure reported at once finds the way back.
  const back: ResumeReturn | null =
    previous && previous !== sessionId ? { kind: 'resumeReturn', sessionId, nodeId: s.nodeId, previousSessionId: previous } : null;
  if (back) await updateChat(deps.db, chatId, { flow: back });
  await setActiveSessionId(deps.db, chatId, s.nodeId, sessionId);
  const statusKey = await queueStatus(ctx, s, true);
  if (back) ctx.bria.chat.flow = back;
  try {
    if (o.takeOverPid !== undefined) await deps.actions.continueHere({ chatId, sessionId, pid: o.takeOverPid });
    else if (o.adoptPid !== undefined) await deps.actions.adoptInPlace({ chatId, sessionId, pid: o.adoptPid });
    else await deps.actions.resumeSession({ chatId, sessionId });
    await releaseBotRow(deps.db, statusKey);
    deps.wakeOutbox?.();
  } catch (error) {
    const now = await getSessionView(deps.db, sessionId);
    // Pressed twice, or resumed from elsewhere in the meantime: the status of the press that asked
    // (or the card) tells the user; this one is withdrawn unsent.
    if (now !== null && OPEN.has(now.state)) {
      await withdrawBotRow(deps.db, statusKey);
      if (!(await openResumeStatus(deps.db, chatId, sessionId))) await queueCard(ctx, { sessionId, fresh: true });
      return;
    }
    // Nothing was started: the chat stays where it was, and the status becomes the one notice.
    await setActiveSessionId(deps.db, chatId, s.nodeId, previous);
    if (back) {
      await updateChat(deps.db, chatId, { flow: null });
      ctx.bria.chat.flow = null;
    }
    let cause = t('resume.causeUnexpected');
    if (isAppError(error) && error.code === 'NODE_OFFLINE') cause = t('resume.causeOffline');
    else if (isAppError(error) && error.userMessage === 'sessions.native_gone') cause = t('resume.causeNativeGone');
    else if (isAppError(error) && error.userMessage === 'sessions.no_folder') cause = t('resume.causeNoFolder');
    else if (isAppError(error) && /native id/.test(error.message)) cause = t('resume.causeNoNativeId');
    else if (isAppError(error) && error.userMessage === 'sessions.running_at_desk') cause = t('resume.causeAtDesk');
    else if (isAppError(error) && (error.userMessage === 'sessions.desk_changed' || error.userMessage === 'sessions.not_at_desk'))
      cause = t('resume.causeDeskChanged');
    else if (isAppError(error) && error.userMessage === 'sessions.handoff_unsupported') cause = t('resume.causeHandoffUnsupported');
    else if (isAppError(error) && error.userMessage === 'sessions.adopt_unsupported') cause = t('resume.causeAdoptUnsupported');
    else if (isAppError(error) && error.userMessage === 'sessions.adopt_not_in_tmux') cause = t('resume.causeAdoptNotInTmux');
    else
      deps.log.error(
        { sessionId, code: isAppError(error) ? error.code : undefined, err: error instanceof Error ? error.message.slice(0, 200) : 'unknown' },
        'resume could not be asked for',
      );
    // The status, not sent yet, becomes the notice itself: one message, no "Resuming" shown first.
    const notice = { kind: 'resume_failed', sessionId, nodeId: s.nodeId, cause };
    if (!(await rewriteBotRow(deps.db, statusKey, { kind: 'resume_failed', payload: notice }))) {
      await enqueueBotRow(deps.db, { dedupeKey: `resume_refused:${statusKey}`, kind: 'resume_failed', chatId, sessionId, payload: notice });
    }
    deps.wakeOutbox?.();
  }
}
