import type { InlineKeyboard } from 'grammy';
import { type ClaimedRow, getChat, zDeliveryPayload } from '@bria/core/services';
import { chatTranslator, showCard } from '../card/card-service.ts';
import type { DeliverContext, Kind, KindContext, KindHandlers, PayloadOf } from './kinds/kind-context.ts';
import { card, edit, final, loginLink, prompt, reply } from './kinds/messages.ts';
import {
  attachmentFailed,
  backgroundDone,
  blockedOnPrompt,
  budget,
  compacted,
  expiryRefusal,
  finalSave,
  messageChanged,
  messageOutcome,
  notice,
  progress,
  scheduleFailed,
} from './kinds/notices.ts';
import { cardUpdate, resumeFailed, resumeStatus } from './kinds/resume.ts';

export type { DeliverContext } from './kinds/kind-context.ts';

/** One handler per kind of the `telegram` outbox (`kinds/`); the compiler checks every kind has one. */
const HANDLERS: KindHandlers = {
  final,
  card_update: cardUpdate,
  resume_status: resumeStatus,
  progress,
  background_done: backgroundDone,
  resume_failed: resumeFailed,
  final_save: finalSave,
  expiry_refusal: expiryRefusal,
  blocked_on_prompt: blockedOnPrompt,
  prompt,
  compacted,
  attachment_failed: attachmentFailed,
  message_outcome: messageOutcome,
  message_changed: messageChanged,
  budget,
  schedule_failed: scheduleFailed,
  notice,
  reply,
  edit,
  card,
  login_link: loginLink,
};

function run<K extends Kind>(kind: K, payload: PayloadOf[K], c: KindContext): Promise<number[]> {
  return HANDLERS[kind](payload, c);
}

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
  const chatKey = row.chatId;
  const chatId = Number(chatKey);
  const chat = await getChat(ctx.db, chatKey);
  const c: KindContext = {
    ...ctx,
    row,
    chatKey,
    chatId,
    chat,
    t: chatTranslator(chat),
    already,
    send: async (html: string, keyboard?: InlineKeyboard) => {
      const m = await ctx.api.sendMessage(chatId, html, {
        parse_mode: 'HTML',
        ...(keyboard ? { reply_markup: keyboard } : {}),
        link_preview_options: { is_disabled: true },
      });
      return [m.message_id];
    },
    refreshCard: async (sessionId: string) => {
      if (chat?.cardSessionId === sessionId) await showCard({ api: ctx.api, db: ctx.db, chatId: chatKey, sessionId });
      return [];
    },
  };
  return run(payload.kind, payload, c);
}
