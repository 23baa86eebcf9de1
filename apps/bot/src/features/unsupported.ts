import { Composer } from 'grammy';
import type { Message } from '@grammyjs/types';
import type { BotContext } from '../context.ts';
import { reply } from '../outbox/queue.ts';

// Content a person sends that Bria does not carry to a CLI. Text, photos and files (animations
// come with a `document` and go as files) are the messages feature's, voice notes and audio the
// voice feature's; service messages (pins, chat changes) are not the user speaking and get nothing.
const NAMED = ['video', 'video_note', 'sticker'] as const;
const OTHER = ['location', 'venue', 'contact', 'poll', 'dice', 'game', 'story', 'paid_media', 'checklist', 'invoice'] as const;

function kindOf(msg: Message): (typeof NAMED)[number] | 'other' | null {
  if (msg.text !== undefined || msg.photo || msg.document || msg.voice || msg.audio) return null;
  const named = NAMED.find((k) => msg[k] !== undefined);
  if (named) return named;
  return OTHER.some((k) => (msg as unknown as Record<string, unknown>)[k] !== undefined) ? 'other' : null;
}

/**
 * Video, round video, stickers and the like: one reply, in the chat's language, that this
 * kind is not supported yet, so the user never waits on a message that went nowhere. Through the
 * outbox, keyed by the update: a redelivered update gets no second reply.
 */
export function unsupportedMessages(): Composer<BotContext> {
  const c = new Composer<BotContext>();
  c.on('message', async (ctx, next) => {
    const kind = kindOf(ctx.message);
    if (!kind) return next();
    const { t } = ctx.bria;
    await reply(ctx, t('attach.unsupported', { kind: t(`kind.${kind}`) }));
  });
  return c;
}
