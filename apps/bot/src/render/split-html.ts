/**
 * Splits Telegram HTML (as produced by `markdownToHtml`) into messages whose visible text fits the
 * limit. Cuts happen only between units (a tag, an entity, a whole code point), preferably after a
 * newline, else after a space; tags open at a cut are closed there and reopened, with the same
 * attributes, at the start of the next part (so a split code block stays a code block).
 */
export const TELEGRAM_TEXT_LIMIT = 4096;

interface Unit {
  html: string;
  len: number;
  open?: string;
  close?: boolean;
  ws?: 'nl' | 'sp';
}

function tokenize(html: string): Unit[] {
  const units: Unit[] = [];
  const re = /<\/?[a-z][a-z0-9-]*(?:\s[^>]*)?>|&(?:#\d+|#x[0-9a-f]+|[a-z]+);|[\s\S]/giu;
  for (const m of html.matchAll(re)) {
    const t = m[0];
    if (t.length > 1 && t.startsWith('</')) units.push({ html: t, len: 0, close: true });
    else if (t.length > 1 && t.startsWith('<')) units.push({ html: t, len: 0, open: /^<([a-z][a-z0-9-]*)/i.exec(t)?.[1]?.toLowerCase() });
    else if (t.startsWith('&') && t.length > 1) units.push({ html: t, len: 1 });
    else units.push({ html: t, len: t.length, ws: t === '\n' ? 'nl' : /^\s$/.test(t) ? 'sp' : undefined });
  }
  return units;
}

const closing = (stack: string[]) =>
  stack
    .map((open) => `</${/^<([a-z][a-z0-9-]*)/i.exec(open)?.[1]}>`)
    .reverse()
    .join('');

/** Text a user would see, for checking emptiness (Telegram refuses empty messages). */
export function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

export function splitHtml(html: string, limit = TELEGRAM_TEXT_LIMIT): string[] {
  const units = tokenize(html);
  const parts: string[] = [];
  let stack: string[] = [];
  let i = 0;
  while (i < units.length) {
    const startStack = [...stack];
    let body = '';
    let used = 0;
    let best: { at: number; body: string; stack: string[]; quality: number } | undefined;
    let j = i;
    for (; j < units.length; j++) {
      const u = units[j] as Unit;
      if (u.len > 0 && used + u.len > limit) break;
      body += u.html;
      used += u.len;
      if (u.open) stack.push(u.html);
      else if (u.close) stack.pop();
      if (u.ws) {
        const quality = u.ws === 'nl' ? 2 : 1;
        // Prefer the latest newline; a space only wins when no newline lies in the last half.
        if (!best || quality >= best.quality || best.at < i + (j - i) / 2) best = { at: j + 1, body, stack: [...stack], quality };
      }
    }
    if (j < units.length && best && best.at > i && used - visibleLength(best.body) < limit / 2) {
      body = best.body;
      stack = best.stack;
      j = best.at;
    } else if (j < units.length) {
      // No good break in reach: cut here, between two whole code points.
    }
    const part = startStack.join('') + body + closing(stack);
    if (visibleText(part).trim()) parts.push(part);
    i = j;
  }
  return parts;
}

function visibleLength(body: string): number {
  return tokenize(body).reduce((n, u) => n + u.len, 0);
}
