import type { Context, InlineKeyboard } from 'grammy';
import { type BotOutboxPayload, enqueueBotRow } from '@bria/core/services';
import type { BotContext } from '../context.ts';
import type { BotDeps } from '../deps.ts';

/**
 * Every chat message a handler sends or edits goes through the durable outbox (README "Handler
 * replies"): the row is written, the sender is woken (so the reply still leaves at once), and the
 * sender delivers it with the outbox's retries (429 retry_after, 5xx backoff) in the chat's order.
 *
 * The dedupe key is derived from the Telegram update, never from the clock: a redelivered update
 * (the bot died before confirming its offset) writes the same keys, so it gets no second reply.
 * It holds the update id, the message id (unique within a private chat) or the callback query id
 * (globally unique) — update ids alone may be reused after a week without updates — and the
 * position of the row within the handler's replies.
 */
const counters = new WeakMap<object, number>();

export function updateKey(ctx: Context): string {
  const chatId = ctx.chat?.id ?? ctx.from?.id ?? 0;
  const origin = ctx.callbackQuery ? `cq${ctx.callbackQuery.id}` : ctx.msg ? `m${ctx.msg.message_id}` : 'x';
  return `${chatId}:${ctx.update.update_id}:${origin}`;
}

function nextKey(ctx: Context, tag: string): string {
  const n = counters.get(ctx) ?? 0;
  counters.set(ctx, n + 1);
  return `bot:${updateKey(ctx)}:${n}:${tag}`;
}

type BotPayload = Extract<BotOutboxPayload, { kind: 'reply' | 'edit' | 'card' | 'login_link' }>;

async function put(ctx: Context, deps: BotDeps, payload: BotPayload, key?: string): Promise<void> {
  const chatId = BigInt(ctx.chat?.id ?? ctx.from?.id ?? 0);
  // sessionId stays null: these rows are the bot's own (core's list/claim do not know their kinds).
  await enqueueBotRow(deps.db, { dedupeKey: key ?? nextKey(ctx, payload.kind), kind: payload.kind, chatId, sessionId: null, payload });
  deps.wakeOutbox?.();
}

const rows = (kb: InlineKeyboard | undefined) => (kb ? (kb.inline_keyboard as unknown as Record<string, unknown>[][]) : undefined);

export interface ReplyOptions {
  /** The text is Telegram HTML (escaped by the caller); otherwise it is sent as plain text. */
  html?: boolean;
  keyboard?: InlineKeyboard;
  noPreview?: boolean;
}

/** A new message in the update's chat (what `ctx.reply` did), through the outbox. */
export async function reply(ctx: BotContext, text: string, o: ReplyOptions = {}): Promise<void> {
  await put(ctx, ctx.bria.deps, { kind: 'reply', text, html: o.html ?? false, keyboard: rows(o.keyboard), noPreview: o.noPreview ?? false });
}

/** A reply written before the chat is known (the access refusal) or by the error boundary (`tag` keeps its key apart). */
export async function replyWith(ctx: Context, deps: BotDeps, text: string, tag?: string): Promise<void> {
  await put(ctx, deps, { kind: 'reply', text, html: false, noPreview: false }, tag ? `bot:${updateKey(ctx)}:${tag}` : undefined);
}

/** Edits one of the bot's messages (e.g. /settings after a press); an edit of a gone message is dropped. */
export async function edit(ctx: BotContext, messageId: number, text: string, o: ReplyOptions = {}): Promise<void> {
  await put(ctx, ctx.bria.deps, { kind: 'edit', messageId, text, html: o.html ?? false, keyboard: rows(o.keyboard), noPreview: o.noPreview ?? false });
}

/** A one-time dashboard link; rendered when it is sent, and removed from the row once it is (deliver.ts `finishedPayload`). */
export async function queueLoginLink(ctx: BotContext, o: { url: string; expiresAt: Date }): Promise<void> {
  await put(ctx, ctx.bria.deps, { kind: 'login_link', url: o.url, expiresAt: o.expiresAt.toISOString() });
}

/**
 * Shows a session's card through the outbox (`showCard` runs in the sender: `fresh` posts a new card,
 * otherwise the current one is edited). The card's message id is recorded by `showCard` in the chat
 * (cardMessageId) and on the row (externalId) once it is sent.
 */
export async function queueCard(ctx: BotContext, o: { sessionId: string; fresh?: boolean; confirmClose?: boolean }): Promise<void> {
  await put(ctx, ctx.bria.deps, { kind: 'card', sessionId: o.sessionId, fresh: o.fresh ?? false, confirmClose: o.confirmClose ?? false });
}
