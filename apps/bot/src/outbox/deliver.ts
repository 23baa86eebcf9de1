import { type Api, GrammyError, InlineKeyboard } from 'grammy';
import type { InlineKeyboardButton } from 'grammy/types';
import { type ClaimedRow, type Db, getActiveSessionId, getChat, getNodeView, getSessionView, OPEN_SESSION_STATES, openResumeStatus, readResumeReturn, resumeAskedSince, setActiveSessionId, settleResumeStatus, updateChat, zDeliveryPayload } from '@bria/core/services';
import { summaryLine } from '../card/activity-line.ts';
import { chatTranslator, showCard } from '../card/card-service.ts';
import { cb } from '../card/callback-data.ts';
import { escapeHtml, renderFinal } from '../render/index.ts';
import { resumeCauseInWords } from '../render/resume-cause.ts';
import { sessionName } from '../render/session-name.ts';
import { deliverPrompt } from '../prompts/prompt-deliver.ts';

/*
 * The payloads of the `telegram` outbox are core's one schema (`zDeliveryPayload`): the engine's
 * kinds and the bot's own (`resume_status`, `reply`, `edit`, `card`, `notice`, `login_link`).
 */
export interface DeliverContext {
  api: Api;
  db: Db;
  /** Called after each delivered part; the row's progress is durable when it resolves. */
  onPart: (messageIds: number[]) => Promise<void>;
}

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

const OPEN = new Set<string>(OPEN_SESSION_STATES);
const notModified = (e: unknown) => e instanceof GrammyError && /message is not modified/.test(e.description);
const editGone = (e: unknown) => e instanceof GrammyError && /message to edit not found|message can't be edited/.test(e.description);

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

const textOptions = (p: { html: boolean; keyboard?: Record<string, unknown>[][] | undefined; noPreview: boolean }) => ({
  ...(p.html ? { parse_mode: 'HTML' as const } : {}),
  ...(p.keyboard ? { reply_markup: { inline_keyboard: p.keyboard as unknown as InlineKeyboardButton[][] } } : {}),
  ...(p.noPreview ? { link_preview_options: { is_disabled: true } } : {}),
});

/**
 * The payload a row keeps once it is finished (sent or failed), when that differs from what it was
 * sent with: a /login link is a dashboard session for whoever reads it, so the row keeps only that
 * a link was sent and until when it was valid. Written in the same statement that marks the row
 * finished, so no finished row ever holds a usable link; an unfinished row keeps it, so a retry
 * after a crash or a 5xx can still deliver it (README "Dashboard links").
 */
export function finishedPayload(row: Pick<ClaimedRow, 'kind' | 'payload'>): object | undefined {
  if (row.kind !== 'login_link') return undefined;
  const p = row.payload as { expiresAt?: unknown };
  return { kind: 'login_link', expiresAt: typeof p.expiresAt === 'string' ? p.expiresAt : null, url: null, removed: 'link removed once the row was finished' };
}

/** Delivers one row; returns the Telegram message ids it produced (all parts). Throws Bot API errors. */
export async function deliver(row: ClaimedRow, already: number[], ctx: DeliverContext): Promise<number[]> {
  const payload = zDeliveryPayload.parse(row.payload);
  if (row.chatId === null) return [];
  const chatId = Number(row.chatId);
  const chat = await getChat(ctx.db, row.chatId);
  const t = chatTranslator(chat);
  const send = async (html: string, keyboard?: InlineKeyboard) => {
    const m = await ctx.api.sendMessage(chatId, html, { parse_mode: 'HTML', ...(keyboard ? { reply_markup: keyboard } : {}), link_preview_options: { is_disabled: true } });
    return [m.message_id];
  };
  const refreshCard = async (sessionId: string) => {
    // Only the card the chat shows is edited; other sessions' cards are stale already.
    if (chat?.cardSessionId === sessionId) await showCard({ api: ctx.api, db: ctx.db, chatId: row.chatId as bigint, sessionId });
    return [];
  };
  switch (payload.kind) {
    case 'final': {
      // A background session's final never lands in the middle of the open conversation: its notice
      // (background_done) offers Open, and opening the session shows this final (releaseHeldFinal).
      if (!payload.active) return [];
      // A final is always new messages (never an edit), one per part, continuing after a restart.
      // The turn's summary ("4 commands, 2 files changed, 3 min") ends it when the turn used tools.
      const parts = renderFinal(payload.text, undefined, payload.summary ? `<i>${escapeHtml(summaryLine(t, payload.summary))}</i>` : undefined);
      const done = [...already];
      for (let k = done.length; k < parts.length; k++) {
        const m = await ctx.api.sendMessage(chatId, parts[k] as string, { parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
        done.push(m.message_id);
        if (k < parts.length - 1) await ctx.onPart(done);
      }
      return done;
    }
    case 'card_update':
      if (await settleResumed(ctx, row.chatId, payload.sessionId)) return [];
      return refreshCard(payload.sessionId);
    case 'resume_status': {
      const s = await getSessionView(ctx.db, payload.sessionId);
      const self = payload as unknown as Record<string, unknown>;
      if (!s || (payload.askedAfter !== undefined && !OPEN.has(s.state) && !(await resumeAskedSince(ctx.db, s.id, BigInt(payload.askedAfter))))) {
        // Never asked for: the bot stopped between the press and asking core (this row was held
        // back, features/resume.ts). The session is untouched; the status is the one notice.
        const kb = new InlineKeyboard().text(t('button.newSession'), cb.encode({ a: 'new', gen: chat?.cardGeneration ?? 0 }));
        const ids = already.length > 0 ? [...already] : await send(escapeHtml(t('resume.failed', { cause: t('resume.causeInterrupted') })), kb);
        if (already.length === 0) await ctx.onPart(ids);
        await settleResumeStatus(ctx.db, row.id, self);
        await restoreAfterFailedResume(ctx, row.chatId, payload);
        return ids;
      }
      if (OPEN.has(s.state) && s.state !== 'Resuming') {
        // Resumed before its status went out: the card (or, if another session is active now, a line with Open).
        let ids: number[];
        if ((await getActiveSessionId(ctx.db, row.chatId, s.nodeId)) === s.id) {
          const id = await showCard({ api: ctx.api, db: ctx.db, chatId: row.chatId, sessionId: s.id, fresh: true });
          ids = id === undefined ? [] : [id];
        } else {
          ids = await send(escapeHtml(t('resume.resumedAway', { title: payload.title })), new InlineKeyboard().text(t('button.open'), cb.encode({ a: 'open', gen: chat?.cardGeneration ?? 0, sessionId: s.id })));
        }
        await settleResumeStatus(ctx.db, row.id, self);
        return ids;
      }
      // Plain text without buttons: nothing in it can go stale. It becomes the card or the one notice.
      return send(escapeHtml(t('resume.resuming', { title: payload.title })));
    }
    case 'progress':
      // The card leaves "closing" too (no later card update follows an archived session); edits are idempotent on a retry.
      if (payload.topic === 'close' && payload.phase === 'done') {
        await refreshCard(payload.sessionId);
        if (chat?.cardSessionId === payload.sessionId) return send(escapeHtml(t('notice.closed')));
        // Another session (in the background, or on another computer; e.g. its lifetime ended): say which.
        const s = await getSessionView(ctx.db, payload.sessionId);
        const node = s ? await getNodeView(ctx.db, s.nodeId) : null;
        const title = s ? sessionName(s, t('archive.untitled'), 120) : t('archive.untitled');
        return send(escapeHtml(t('notice.closedOther', { node: node?.name ?? '?', title })));
      }
      if (payload.topic === 'stop' && payload.phase === 'unconfirmed') return send(escapeHtml(t('notice.stopUnconfirmed')));
      return refreshCard(payload.sessionId);
    case 'background_done': {
      const kb = new InlineKeyboard().text(t('button.open'), cb.encode({ a: 'open', gen: chat?.cardGeneration ?? 0, sessionId: payload.sessionId }));
      const s = await getSessionView(ctx.db, payload.sessionId);
      const title = s ? sessionName({ ...s, title: payload.title ?? s.title }, t('archive.untitled'), 120) : (payload.title ?? t('archive.untitled')).slice(0, 120);
      return send(escapeHtml(t('background.done', { title })), kb);
    }
    case 'resume_failed': {
      const html = escapeHtml(t('resume.failed', { cause: resumeCauseInWords(t, payload.cause) }));
      const kb = new InlineKeyboard().text(t('button.newSession'), cb.encode({ a: 'new', gen: chat?.cardGeneration ?? 0 }));
      // A Resume pressed in this chat showed a status, never a card (SPEC §3: no card is created):
      // that status message becomes the one notice. Otherwise (e.g. a crash recovery that could not
      // resume) the session's card, if shown, says it is closed and the notice is a new message.
      const st = await openResumeStatus(ctx.db, row.chatId, payload.sessionId);
      if (st?.messageId === undefined) await refreshCard(payload.sessionId);
      // Exactly one notice: recorded as a part before anything else happens, so a retry skips it.
      let ids = [...already];
      if (ids.length === 0) ids = st?.messageId !== undefined ? [await editOrSend(ctx.api, chatId, st.messageId, html, kb)] : await send(html, kb);
      if (already.length === 0) await ctx.onPart(ids);
      if (st) await settleResumeStatus(ctx.db, st.id, st.payload);
      await restoreAfterFailedResume(ctx, row.chatId, payload);
      return ids;
    }
    case 'final_save':
      return send(escapeHtml(payload.phase === 'failing' ? t('notice.finalSaveFailing', { cause: payload.cause ?? '—' }) : t('notice.finalSaveRecovered')));
    case 'expiry_refusal':
      return send(escapeHtml(t('msg.refusedExpired')));
    case 'blocked_on_prompt': {
      // Which session's CLI waits: with several sessions a bare screen says nothing about where.
      const s = await getSessionView(ctx.db, payload.sessionId);
      const head = s ? `${escapeHtml(t('notice.blocked', { name: sessionName(s, t('archive.untitled')) }))}\n` : '';
      return send(`${head}<pre>${escapeHtml(payload.text.slice(0, 3500))}</pre>`);
    }
    case 'prompt':
      return deliverPrompt(ctx, { chat, chatId: row.chatId, t, already, promptId: payload.promptId, phase: payload.phase });
    case 'compacted': {
      const s = await getSessionView(ctx.db, payload.sessionId);
      const name = s ? sessionName(s, t('archive.untitled'), 120) : t('archive.untitled');
      return send(escapeHtml(t(payload.ok ? 'compact.done' : 'compact.failed', { name, detail: payload.detail })));
    }
    case 'attachment_failed':
      return send(escapeHtml(t('attach.notDelivered')));
    case 'message_outcome': {
      // A reply to the message it is about; still sent if the user deleted that message meanwhile.
      const reply = payload.replyTo === null ? {} : { reply_parameters: { message_id: payload.replyTo, allow_sending_without_reply: true } };
      const m = await ctx.api.sendMessage(chatId, escapeHtml(t(`outcome.${payload.reason}`)), { parse_mode: 'HTML', ...reply, link_preview_options: { is_disabled: true } });
      return [m.message_id];
    }
    case 'notice':
      return send(escapeHtml(t(payload.key, payload.params)));
    case 'reply': {
      const m = await ctx.api.sendMessage(chatId, payload.text, textOptions(payload));
      return [m.message_id];
    }
    case 'edit':
      try {
        await ctx.api.editMessageText(chatId, payload.messageId, payload.text, textOptions(payload));
      } catch (e) {
        // Unchanged, or the message is gone (deleted by the user): there is nothing left to show.
        if (!notModified(e) && !editGone(e)) throw e;
      }
      return [payload.messageId];
    case 'card': {
      const id = await showCard({ api: ctx.api, db: ctx.db, chatId: row.chatId, sessionId: payload.sessionId, fresh: payload.fresh, confirmClose: payload.confirmClose });
      return id === undefined ? [] : [id];
    }
    case 'login_link': {
      const left = Date.parse(payload.expiresAt) - Date.now();
      // A link that ran out while waiting (Telegram unreachable for its whole validity) would only
      // be refused at the door: say so instead of sending it.
      if (!(left > 0)) return send(escapeHtml(t('login.expiredUnsent')));
      return send(`${escapeHtml(t('login.link', { minutes: Math.max(1, Math.round(left / 60_000)) }))}\n${escapeHtml(payload.url)}`);
    }
    default:
      return payload satisfies never;
  }
}
