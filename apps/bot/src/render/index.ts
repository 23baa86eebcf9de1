import { markdownToHtml } from './markdown.ts';
import { splitHtml, TELEGRAM_TEXT_LIMIT, visibleText } from './split-html.ts';

export { escapeAttr, escapeHtml } from './escape.ts';
export { markdownToHtml } from './markdown.ts';
export { splitHtml, TELEGRAM_TEXT_LIMIT, visibleText } from './split-html.ts';

/**
 * A final answer (Markdown as the CLI wrote it) → one or more Telegram HTML messages, in order.
 * `footer` (HTML, short: the turn's summary) ends the last message, or is a message of its own when
 * it does not fit there.
 */
export function renderFinal(markdown: string, limit = TELEGRAM_TEXT_LIMIT, footer?: string): string[] {
  const parts = splitHtml(markdownToHtml(markdown), limit);
  if (parts.length === 0) parts.push('…');
  if (footer) {
    const last = parts.length - 1;
    const joined = `${parts[last]}\n\n${footer}`;
    if (visibleText(joined).length <= limit) parts[last] = joined;
    else parts.push(footer);
  }
  return parts;
}
