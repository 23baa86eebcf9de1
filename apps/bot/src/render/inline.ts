import { escapeAttr, escapeHtml } from './escape.ts';

/**
 * Inline Markdown (as the CLIs write it) → Telegram HTML. A tag is emitted only when its closing
 * delimiter is found on the same line, and the inner text is rendered recursively inside that
 * range, so the output is balanced by construction; anything unmatched stays literal text.
 */
const SAFE_LINK = /^(https?:\/\/|mailto:|tg:\/\/)[^\s<>"]+$/i;

interface Pair {
  open: string;
  close: string;
  tag: string;
  wordBound: boolean;
}
const PAIRS: Pair[] = [
  { open: '**', close: '**', tag: 'b', wordBound: false },
  { open: '__', close: '__', tag: 'b', wordBound: true },
  { open: '~~', close: '~~', tag: 's', wordBound: false },
  { open: '*', close: '*', tag: 'i', wordBound: false },
  { open: '_', close: '_', tag: 'i', wordBound: true },
];

const isWordChar = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}]/u.test(ch);
const isSpace = (ch: string | undefined) => ch === undefined || /\s/.test(ch);

function findCloser(s: string, from: number, p: Pair): number {
  for (let j = s.indexOf(p.close, from); j !== -1; j = s.indexOf(p.close, j + 1)) {
    if (j === from) continue;
    if (isSpace(s[j - 1])) continue;
    if (p.wordBound && isWordChar(s[j + p.close.length])) continue;
    // `**` must not be taken as two single `*` closers.
    if (p.close.length === 1 && s[j + 1] === p.close) {
      j++;
      continue;
    }
    // In `***` closing `**…*`, the inner `*` closes first: take the last `**` of the run.
    while (p.close.length > 1 && s[j + p.close.length] === p.close[0]) j++;
    return j;
  }
  return -1;
}

function codeSpan(s: string, i: number): { html: string; end: number } | undefined {
  let n = 0;
  while (s[i + n] === '`') n++;
  const fence = '`'.repeat(n);
  for (let j = s.indexOf(fence, i + n); j !== -1; j = s.indexOf(fence, j + 1)) {
    if (s[j + n] === '`' || s[j - 1] === '`') continue;
    const inner = s.slice(i + n, j);
    if (inner.length === 0) return undefined;
    const trimmed = /^ .* $/.test(inner) && inner.trim() ? inner.slice(1, -1) : inner;
    return { html: `<code>${escapeHtml(trimmed)}</code>`, end: j + n };
  }
  return undefined;
}

function link(s: string, i: number, depth: number): { html: string; end: number } | undefined {
  const closeText = s.indexOf('](', i + 1);
  if (closeText === -1) return undefined;
  const closeUrl = s.indexOf(')', closeText + 2);
  if (closeUrl === -1) return undefined;
  const text = s.slice(i + 1, closeText);
  const url = s.slice(closeText + 2, closeUrl).trim();
  if (!text || text.includes('[') || !SAFE_LINK.test(url)) return undefined;
  return { html: `<a href="${escapeAttr(url)}">${renderInline(text, depth + 1, true)}</a>`, end: closeUrl + 1 };
}

export function renderInline(s: string, depth = 0, inLink = false): string {
  let out = '';
  let i = 0;
  let plainFrom = 0;
  const flush = (to: number) => {
    out += escapeHtml(s.slice(plainFrom, to));
  };
  while (i < s.length) {
    const ch = s[i];
    let hit: { html: string; end: number } | undefined;
    if (ch === '\\' && i + 1 < s.length && /[\\`*_~[\]()#>|-]/.test(s[i + 1] as string)) {
      hit = { html: escapeHtml(s[i + 1] as string), end: i + 2 };
    } else if (ch === '`') {
      hit = codeSpan(s, i);
      if (!hit) {
        // A run of unmatched backticks is literal as a whole, never re-read as a shorter fence.
        let n = 0;
        while (s[i + n] === '`') n++;
        hit = { html: '`'.repeat(n), end: i + n };
      }
    } else if (ch === '[' && !inLink && depth < 8) {
      hit = link(s, i, depth);
    } else if (depth < 8 && (ch === '*' || ch === '_' || ch === '~')) {
      for (const p of PAIRS) {
        if (!s.startsWith(p.open, i)) continue;
        if (p.wordBound && isWordChar(s[i - 1])) continue;
        if (isSpace(s[i + p.open.length])) continue;
        const j = findCloser(s, i + p.open.length, p);
        if (j === -1) continue;
        hit = { html: `<${p.tag}>${renderInline(s.slice(i + p.open.length, j), depth + 1, inLink)}</${p.tag}>`, end: j + p.close.length };
        break;
      }
    }
    if (hit) {
      flush(i);
      out += hit.html;
      i = hit.end;
      plainFrom = i;
    } else {
      i++;
    }
  }
  flush(s.length);
  return out;
}
