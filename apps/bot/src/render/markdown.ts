import { escapeAttr, escapeHtml } from './escape.ts';
import { renderInline } from './inline.ts';

/**
 * Block-level Markdown → Telegram HTML: headings become bold lines, fenced code becomes
 * `<pre><code class="language-x">`, tables become aligned preformatted text, lists get bullets,
 * quotes become `<blockquote>`. An unclosed fence runs to the end and is closed.
 */
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)[^`]*$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_SEP = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

function splitRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

const width = (s: string) => [...s].length;

function renderTable(lines: string[]): string {
  const rows = lines.filter((l) => !TABLE_SEP.test(l)).map(splitRow);
  const cols = Math.max(...rows.map((r) => r.length));
  const widths = Array.from({ length: cols }, (_, c) => Math.max(...rows.map((r) => width(r[c] ?? ''))));
  const fmt = (r: string[]) =>
    widths
      .map((w, c) => (r[c] ?? '') + ' '.repeat(w - width(r[c] ?? '')))
      .join(' | ')
      .trimEnd();
  const out = rows.map(fmt);
  if (rows.length > 1 && lines.some((l) => TABLE_SEP.test(l))) out.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('-+-'));
  return `<pre>${escapeHtml(out.join('\n'))}</pre>`;
}

export function markdownToHtml(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let quote: string[] = [];
  const flushQuote = () => {
    if (quote.length) out.push(`<blockquote>${quote.join('\n')}</blockquote>`);
    quote = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const fence = FENCE.exec(line);
    if (fence) {
      flushQuote();
      const marker = fence[1] as string;
      const body: string[] = [];
      let j = i + 1;
      const closer = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
      while (j < lines.length && !closer.test(lines[j] as string)) body.push(lines[j++] as string);
      const lang = fence[2];
      const code = escapeHtml(body.join('\n'));
      out.push(lang ? `<pre><code class="language-${escapeAttr(lang)}">${code}</code></pre>` : `<pre>${code}</pre>`);
      i = j;
      continue;
    }
    if (TABLE_ROW.test(line) && i + 1 < lines.length && (TABLE_ROW.test(lines[i + 1] as string) || TABLE_SEP.test(lines[i + 1] as string))) {
      flushQuote();
      const rows: string[] = [];
      while (i < lines.length && (TABLE_ROW.test(lines[i] as string) || TABLE_SEP.test(lines[i] as string))) rows.push(lines[i++] as string);
      i--;
      out.push(renderTable(rows));
      continue;
    }
    const q = /^\s{0,3}>\s?(.*)$/.exec(line);
    if (q) {
      quote.push(renderInline(q[1] as string));
      continue;
    }
    flushQuote();
    out.push(renderLine(line));
  }
  flushQuote();
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function renderLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return `<b>${renderInline(heading[1] as string)}</b>`;
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '——————';
  const bullet = /^(\s*)[-*+]\s+(\[[ xX]\]\s+)?(.*)$/.exec(line);
  if (bullet) {
    const box = bullet[2] ? (bullet[2].trim() === '[ ]' ? '☐ ' : '☑ ') : '';
    return `${bullet[1]}• ${box}${renderInline(bullet[3] as string)}`;
  }
  const numbered = /^(\s*)(\d{1,9}[.)])\s+(.*)$/.exec(line);
  if (numbered) return `${numbered[1]}${numbered[2]} ${renderInline(numbered[3] as string)}`;
  return renderInline(line);
}
