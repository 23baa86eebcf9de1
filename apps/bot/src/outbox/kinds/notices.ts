import { InlineKeyboard } from 'grammy';
import { getNodeView, getSessionView } from '@bria/core/services';
import { cb } from '../../card/callback-data.ts';
import { escapeHtml } from '../../render/index.ts';
import { sessionName } from '../../render/session-name.ts';
import type { KindHandler } from './kind-context.ts';

/** Recovery, stop and close progress: the card shows it; a close done and an unconfirmed stop are also said. */
export const progress: KindHandler<'progress'> = async (p, c) => {
  const { t } = c;
  // The card leaves "closing" too (no later card update follows an archived session); edits are idempotent on a retry.
  if (p.topic === 'close' && p.phase === 'done') {
    await c.refreshCard(p.sessionId);
    if (c.chat?.cardSessionId === p.sessionId) return c.send(escapeHtml(t('notice.closed')));
    // Another session (in the background, or on another computer; e.g. its lifetime ended): say which.
    const s = await getSessionView(c.db, p.sessionId);
    const node = s ? await getNodeView(c.db, s.nodeId) : null;
    const title = s ? sessionName(s, t('archive.untitled'), 120) : t('archive.untitled');
    return c.send(escapeHtml(t('notice.closedOther', { node: node?.name ?? '?', title })));
  }
  if (p.topic === 'stop' && p.phase === 'unconfirmed') return c.send(escapeHtml(t('notice.stopUnconfirmed')));
  return c.refreshCard(p.sessionId);
};

export const backgroundDone: KindHandler<'background_done'> = async (p, c) => {
  const { t } = c;
  const kb = new InlineKeyboard().text(t('button.open'), cb.encode({ a: 'open', gen: c.chat?.cardGeneration ?? 0, sessionId: p.sessionId }));
  const s = await getSessionView(c.db, p.sessionId);
  const title = s ? sessionName({ ...s, title: p.title ?? s.title }, t('archive.untitled'), 120) : (p.title ?? t('archive.untitled')).slice(0, 120);
  return c.send(escapeHtml(t('background.done', { title })), kb);
};

export const finalSave: KindHandler<'final_save'> = (p, c) =>
  c.send(escapeHtml(p.phase === 'failing' ? c.t('notice.finalSaveFailing', { cause: p.cause ?? '—' }) : c.t('notice.finalSaveRecovered')));

/** A budget passed 80 % or 100 %: which budget, how much of it, and (at 100 %) that messages now wait. */
export const budget: KindHandler<'budget'> = async (p, c) => {
  const s = p.scope === 'session' ? await getSessionView(c.db, p.sessionId) : null;
  const vars = { spent: `$${p.spentUsd.toFixed(2)}`, budget: `$${p.budgetUsd.toFixed(2)}`, name: s ? sessionName(s, c.t('archive.untitled'), 120) : '' };
  return c.send(escapeHtml(c.t(`budget.${p.scope}.${p.level}`, vars)));
};

/** An occurrence of a scheduled message was not sent: which session, why, and the text (so nothing is lost silently). */
export const scheduleFailed: KindHandler<'schedule_failed'> = async (p, c) => {
  const s = await getSessionView(c.db, p.sessionId);
  const name = s ? sessionName(s, c.t('archive.untitled'), 120) : c.t('archive.untitled');
  return c.send(escapeHtml(c.t(`schedules.failed.${p.reason}`, { name, detail: p.detail, text: p.text })));
};

export const expiryRefusal: KindHandler<'expiry_refusal'> = (_p, c) => c.send(escapeHtml(c.t('msg.refusedExpired')));

/** The screen's dialog, with which session's CLI waits: with several sessions a bare screen says nothing about where. */
export const blockedOnPrompt: KindHandler<'blocked_on_prompt'> = async (p, c) => {
  const s = await getSessionView(c.db, p.sessionId);
  const head = s ? `${escapeHtml(c.t('notice.blocked', { name: sessionName(s, c.t('archive.untitled')) }))}\n` : '';
  return c.send(`${head}<pre>${escapeHtml(p.text.slice(0, 3500))}</pre>`);
};

export const compacted: KindHandler<'compacted'> = async (p, c) => {
  const s = await getSessionView(c.db, p.sessionId);
  const name = s ? sessionName(s, c.t('archive.untitled'), 120) : c.t('archive.untitled');
  return c.send(escapeHtml(c.t(p.ok ? 'compact.done' : 'compact.failed', { name, detail: p.detail })));
};

export const attachmentFailed: KindHandler<'attachment_failed'> = (_p, c) => c.send(escapeHtml(c.t('attach.notDelivered')));

/** A reply to the message it is about; still sent if the user deleted that message meanwhile. */
export const messageOutcome: KindHandler<'message_outcome'> = async (p, c) => {
  const reply = p.replyTo === null ? {} : { reply_parameters: { message_id: p.replyTo, allow_sending_without_reply: true } };
  const m = await c.api.sendMessage(c.chatId, escapeHtml(c.t(`outcome.${p.reason}`)), {
    parse_mode: 'HTML',
    ...reply,
    link_preview_options: { is_disabled: true },
  });
  return [m.message_id];
};

/** A queued message from this chat was cancelled or edited on the dashboard: a reply to it, so its text here is not taken for what the CLI gets. */
export const messageChanged: KindHandler<'message_changed'> = async (p, c) => {
  const m = await c.api.sendMessage(c.chatId, escapeHtml(c.t(p.change === 'cancelled' ? 'queue.cancelledOnWeb' : 'queue.editedOnWeb', { seq: p.seq })), {
    parse_mode: 'HTML',
    reply_parameters: { message_id: p.replyTo, allow_sending_without_reply: true },
    link_preview_options: { is_disabled: true },
  });
  return [m.message_id];
};

export const notice: KindHandler<'notice'> = (p, c) => c.send(escapeHtml(c.t(p.key, p.params)));
