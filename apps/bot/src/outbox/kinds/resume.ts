import { type Api, GrammyError, InlineKeyboard } from 'grammy';
import {
  getActiveSessionId,
  getChat,
  getSessionView,
  OPEN_SESSION_STATES,
  openResumeStatus,
  readResumeReturn,
  resumeAskedSince,
  setActiveSessionId,
  settleResumeStatus,
  updateChat,
} from '@bria/core/services';
import { chatTranslator, showCard } from '../../card/card-service.ts';
import { cb } from '../../card/callback-data.ts';
import { escapeHtml } from '../../render/index.ts';
import { resumeCauseInWords } from '../../render/resume-cause.ts';
import type { DeliverContext, KindHandler } from './kind-context.ts';

const OPEN = new Set<string>(OPEN_SESSION_STATES);
export const notModified = (e: unknown) => e instanceof GrammyError && /message is not modified/.test(e.description);
export const editGone = (e: unknown) => e instanceof GrammyError && /message to edit not found|message can't be edited/.test(e.description);

/**
 * After a failed resume the chat is not left without an active session: if the failed one is still
 * the node's active session, the one that was active before Resume was pressed (if still open)
 * becomes active again and its card is posted under the notice. Without one, the notice's New
 * session button says what to do next (no card of the failed session was ever shown, SPEC §3).
 * Running it twice changes nothing (the failed session is no longer active).
 */
async function restoreAfterFailedResume(ctx: DeliverContext, chatId: bigint, p: { sessionId: string; nodeId: string }): Promise<void> {
  if ((await getActiveSessionId(ctx.db, chatId, p.nodeId)) !== p.sessionId) return;
  const chat = await getChat(ctx.db, chatId);
  const back = readResumeReturn(chat?.flow, p.sessionId);
  const previous = back ? await getSessionView(ctx.db, back.previousSessionId) : null;
  if (back) await updateChat(ctx.db, chatId, { flow: null });
  if (!previous || !(OPEN_SESSION_STATES as readonly string[]).includes(previous.state)) return;
  await setActiveSessionId(ctx.db, chatId, p.nodeId, previous.id);
  await showCard({ api: ctx.api, db: ctx.db, chatId, sessionId: previous.id, fresh: true });
}

/**
 * The resume asked for from this chat succeeded: its "Resuming …" status message becomes the
 * session's card (edited in place: no second message, and a repeat after a crash edits the same
 * message again). If the user made another session active meanwhile, the status says the session
 * resumed in the background and offers Open instead. Returns false when there is nothing to settle
 * (no open status, or the session is still resuming or did not resume: the failure has its own row).
 */
async function settleResumed(ctx: DeliverContext, chatId: bigint, sessionId: string): Promise<boolean> {
  const st = await openResumeStatus(ctx.db, chatId, sessionId);
  if (!st || st.messageId === undefined) return false;
  const s = await getSessionView(ctx.db, sessionId);
  if (!s || s.state === 'Resuming' || !OPEN.has(s.state)) return false;
  if ((await getActiveSessionId(ctx.db, chatId, s.nodeId)) === s.id) {
    await showCard({ api: ctx.api, db: ctx.db, chatId, sessionId, into: st.messageId });
  } else {
    const chat = await getChat(ctx.db, chatId);
    const t = chatTranslator(chat);
    const kb = new InlineKeyboard().text(t('button.open'), cb.encode({ a: 'open', gen: chat?.cardGeneration ?? 0, sessionId }));
    await editOrSend(ctx.api, Number(chatId), st.messageId, escapeHtml(t('resume.resumedAway', { title: String(st.payload.title ?? '') })), kb);
  }
  await settleResumeStatus(ctx.db, st.id, st.payload);
  return true;
}

/** Edits a message of the bot into `html`; a message that is gone is replaced by a new one. Returns the id shown. */
async function editOrSend(api: Api, chatId: number, messageId: number, html: string, keyboard: InlineKeyboard): Promise<number> {
  try {
    await api.editMessageText(chatId, messageId, html, { parse_mode: 'HTML', reply_markup: keyboard, link_preview_options: { is_disabled: true } });
    return messageId;
  } catch (e) {
    if (notModified(e)) return messageId;
    if (!editGone(e)) throw e;
  }
  const m = await api.sendMessage(chatId, html, { parse_mode: 'HTML', reply_markup: keyboard, link_preview_options: { is_disabled: true } });
  return m.message_id;
}

/** A session's state moved: a resume's status settles into its card, else the card the chat shows is redrawn. */
export const cardUpdate: KindHandler<'card_update'> = async (p, c) => {
  if (await settleResumed(c, c.chatKey, p.sessionId)) return [];
  return c.refreshCard(p.sessionId);
};

/** The status of a Resume pressed in this chat ("Resuming …"), which later becomes the card or the one notice. */
export const resumeStatus: KindHandler<'resume_status'> = async (p, c) => {
  const { t, chat, already } = c;
  const s = await getSessionView(c.db, p.sessionId);
  const self = p as unknown as Record<string, unknown>;
  if (!s || (p.askedAfter !== undefined && !OPEN.has(s.state) && !(await resumeAskedSince(c.db, s.id, BigInt(p.askedAfter))))) {
    // Never asked for: the bot stopped between the press and asking core (this row was held
    // back, features/resume.ts). The session is untouched; the status is the one notice.
    const kb = new InlineKeyboard().text(t('button.newSession'), cb.encode({ a: 'new', gen: chat?.cardGeneration ?? 0 }));
    const ids = already.length > 0 ? [...already] : await c.send(escapeHtml(t('resume.failed', { cause: t('resume.causeInterrupted') })), kb);
    if (already.length === 0) await c.onPart(ids);
    await settleResumeStatus(c.db, c.row.id, self);
    await restoreAfterFailedResume(c, c.chatKey, p);
    return ids;
  }
  if (OPEN.has(s.state) && s.state !== 'Resuming') {
    // Resumed before its status went out: the card (or, if another session is active now, a line with Open).
    let ids: number[];
    if ((await getActiveSessionId(c.db, c.chatKey, s.nodeId)) === s.id) {
      const id = await showCard({ api: c.api, db: c.db, chatId: c.chatKey, sessionId: s.id, fresh: true });
      ids = id === undefined ? [] : [id];
    } else {
      ids = await c.send(
        escapeHtml(t('resume.resumedAway', { title: p.title })),
        new InlineKeyboard().text(t('button.open'), cb.encode({ a: 'open', gen: chat?.cardGeneration ?? 0, sessionId: s.id })),
      );
    }
    await settleResumeStatus(c.db, c.row.id, self);
    return ids;
  }
  // Plain text without buttons: nothing in it can go stale. It becomes the card or the one notice.
  return c.send(escapeHtml(t('resume.resuming', { title: p.title })));
};

/** The resume failed: exactly one notice, in place of the status a Resume pressed here showed. */
export const resumeFailed: KindHandler<'resume_failed'> = async (p, c) => {
  const { t, chat, already } = c;
  const html = escapeHtml(t('resume.failed', { cause: resumeCauseInWords(t, p.cause) }));
  const kb = new InlineKeyboard().text(t('button.newSession'), cb.encode({ a: 'new', gen: chat?.cardGeneration ?? 0 }));
  // A Resume pressed in this chat showed a status, never a card (SPEC §3: no card is created):
  // that status message becomes the one notice. Otherwise (e.g. a crash recovery that could not
  // resume) the session's card, if shown, says it is closed and the notice is a new message.
  const st = await openResumeStatus(c.db, c.chatKey, p.sessionId);
  if (st?.messageId === undefined) await c.refreshCard(p.sessionId);
  // Exactly one notice: recorded as a part before anything else happens, so a retry skips it.
  let ids = [...already];
  if (ids.length === 0) ids = st?.messageId !== undefined ? [await editOrSend(c.api, c.chatId, st.messageId, html, kb)] : await c.send(html, kb);
  if (already.length === 0) await c.onPart(ids);
  if (st) await settleResumeStatus(c.db, st.id, st.payload);
  await restoreAfterFailedResume(c, c.chatKey, p);
  return ids;
};
