import { z } from 'zod';
import { isMessageKey, type MessageKey } from '../../i18n/index.ts';
import { zOutboxPayload } from './outbox.ts';

/**
 * The outbox payload schema, in one place. The engine's kinds are `zOutboxPayload` (outbox.ts,
 * checked on every write). The Telegram bot's own kinds (`zBotOutboxPayload`) are written by the bot
 * through `enqueueBotRow` (telegram-outbox.ts): handler replies, edits, cards, notices, the resume
 * status and the /login link. A sender reads every row it claims with `zDeliveryPayload`, the union
 * of both; unknown extra fields are dropped.
 */
const zKeyboard = z.array(z.array(z.record(z.string(), z.unknown())));
export const zBotOutboxPayload = z.discriminatedUnion('kind', [
  /** Written by the bot when Resume is pressed: a plain status, never a card. */
  z.object({
    kind: z.literal('resume_status'),
    sessionId: z.string(),
    nodeId: z.string(),
    title: z.string(),
    askedAfter: z.string().regex(/^\d+$/).optional(),
    settled: z.boolean().optional(),
  }),
  /** Written by the bot's handlers: a reply or an edit rendered at the update, and a card shown at delivery. */
  z.object({ kind: z.literal('reply'), text: z.string(), html: z.boolean(), keyboard: zKeyboard.optional(), noPreview: z.boolean().default(false) }),
  z.object({
    kind: z.literal('edit'),
    messageId: z.number().int(),
    text: z.string(),
    html: z.boolean(),
    keyboard: zKeyboard.optional(),
    noPreview: z.boolean().default(false),
  }),
  z.object({ kind: z.literal('card'), sessionId: z.string(), fresh: z.boolean().default(false), confirmClose: z.boolean().default(false) }),
  z.object({
    kind: z.literal('notice'),
    key: z.custom<MessageKey>(isMessageKey, 'not a message key'),
    params: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
  }),
  /** A one-time dashboard link (/login): the only secret in the outbox, removed once the row is finished. */
  z.object({ kind: z.literal('login_link'), url: z.string(), expiresAt: z.string() }),
]);
export type BotOutboxPayload = z.infer<typeof zBotOutboxPayload>;

export const zDeliveryPayload = z.discriminatedUnion('kind', [...zOutboxPayload.options, ...zBotOutboxPayload.options]);
export type DeliveryPayload = z.infer<typeof zDeliveryPayload>;
