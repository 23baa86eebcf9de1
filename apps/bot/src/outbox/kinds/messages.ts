import type { InlineKeyboardButton } from 'grammy/types';
import { summaryLine } from '../../card/activity-line.ts';
import { showCard } from '../../card/card-service.ts';
import { deliverPrompt } from '../../prompts/prompt-deliver.ts';
import { escapeHtml, renderFinal } from '../../render/index.ts';
import type { KindHandler } from './kind-context.ts';
import { editGone, notModified } from './resume.ts';

const textOptions = (p: { html: boolean; keyboard?: Record<string, unknown>[][] | undefined; noPreview: boolean }) => ({
  ...(p.html ? { parse_mode: 'HTML' as const } : {}),
  ...(p.keyboard ? { reply_markup: { inline_keyboard: p.keyboard as unknown as InlineKeyboardButton[][] } } : {}),
  ...(p.noPreview ? { link_preview_options: { is_disabled: true } } : {}),
});

/**
 * A final is always new messages (never an edit), one per part, continuing after a restart. A
 * background session's final never lands in the middle of the open conversation: its notice
 * (background_done) offers Open, and opening the session shows this final (releaseHeldFinal).
 */
export const final: KindHandler<'final'> = async (p, c) => {
  if (!p.active) return [];
  // The turn's summary ("4 commands, 2 files changed, 3 min") ends it when the turn used tools.
  const parts = renderFinal(p.text, undefined, p.summary ? `<i>${escapeHtml(summaryLine(c.t, p.summary))}</i>` : undefined);
  const done = [...c.already];
  for (let k = done.length; k < parts.length; k++) {
    const m = await c.api.sendMessage(c.chatId, parts[k] as string, { parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
    done.push(m.message_id);
    if (k < parts.length - 1) await c.onPart(done);
  }
  return done;
};

export const prompt: KindHandler<'prompt'> = (p, c) =>
  deliverPrompt(c, { chat: c.chat, chatId: c.chatKey, t: c.t, already: c.already, promptId: p.promptId, phase: p.phase });

export const reply: KindHandler<'reply'> = async (p, c) => {
  const m = await c.api.sendMessage(c.chatId, p.text, textOptions(p));
  return [m.message_id];
};

export const edit: KindHandler<'edit'> = async (p, c) => {
  try {
    await c.api.editMessageText(c.chatId, p.messageId, p.text, textOptions(p));
  } catch (e) {
    // Unchanged, or the message is gone (deleted by the user): there is nothing left to show.
    if (!notModified(e) && !editGone(e)) throw e;
  }
  return [p.messageId];
};

export const card: KindHandler<'card'> = async (p, c) => {
  const id = await showCard({ api: c.api, db: c.db, chatId: c.chatKey, sessionId: p.sessionId, fresh: p.fresh, confirmClose: p.confirmClose });
  return id === undefined ? [] : [id];
};

/**
 * A /login link. One that ran out while waiting (Telegram unreachable for its whole validity) would
 * only be refused at the door: say so instead of sending it.
 */
export const loginLink: KindHandler<'login_link'> = (p, c) => {
  const left = Date.parse(p.expiresAt) - Date.now();
  if (!(left > 0)) return c.send(escapeHtml(c.t('login.expiredUnsent')));
  return c.send(`${escapeHtml(c.t('login.link', { minutes: Math.max(1, Math.round(left / 60_000)) }))}\n${escapeHtml(p.url)}`);
};
