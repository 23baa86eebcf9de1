import type { Transformer } from 'grammy';
import { visibleText } from './split-html.ts';

/** Telegram's answer to text whose markup it cannot read (HTML, MarkdownV2, Markdown). */
export const CANT_PARSE_ENTITIES = /can't parse entities/i;
const TEXT_METHODS = new Set(['sendMessage', 'editMessageText']);

/**
 * A message Telegram refuses as malformed markup (400 "can't parse entities") is sent again at
 * once as plain text: the words arrive without formatting instead of never. The 400 means Telegram
 * created nothing, so the second request cannot make a copy, and the outbox still records the one
 * message id this returns (exactly once is unchanged). HTML loses its tags and entities are
 * decoded; other parse modes are sent as written. Installed on every Api the bot uses (the bot's,
 * copied to each update's `ctx.api`, and the outbox sender's), so direct replies and outbox rows
 * behave the same. Decision: no retry with a "repaired" markup — plain text is always accepted.
 */
export function plainTextFallback(onFallback?: (method: string, description: string) => void): Transformer {
  return async (prev, method, payload, signal) => {
    const res = await prev(method, payload, signal);
    if (res.ok || res.error_code !== 400 || !CANT_PARSE_ENTITIES.test(res.description) || !TEXT_METHODS.has(method)) return res;
    const p = payload as Record<string, unknown>;
    if (typeof p.text !== 'string' || p.parse_mode === undefined) return res;
    const { parse_mode: mode, entities: _entities, ...rest } = p;
    const plain = mode === 'HTML' ? visibleText(p.text) : p.text;
    onFallback?.(method, res.description);
    return prev(method, { ...rest, text: plain.trim() ? plain : p.text } as typeof payload, signal);
  };
}
