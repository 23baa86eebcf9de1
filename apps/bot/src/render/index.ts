import { markdownToHtml } from './markdown.ts';
import { splitHtml, TELEGRAM_TEXT_LIMIT } from './split-html.ts';

export { escapeAttr, escapeHtml } from './escape.ts';
export { markdownToHtml } from './markdown.ts';
export { splitHtml, TELEGRAM_TEXT_LIMIT, visibleText } from './split-html.ts';

/** A final answer (Markdown as the CLI wrote it) → one or more Telegram HTML messages, in order. */
export function renderFinal(markdown: string, limit = TELEGRAM_TEXT_LIMIT): string[] {
  const parts = splitHtml(markdownToHtml(markdown), limit);
  return parts.length ? parts : ['…'];
}
