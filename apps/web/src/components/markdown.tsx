import { Fragment, type ReactNode } from 'react';

/**
 * A small Markdown renderer for answers: it builds React elements only (never HTML strings), so
 * whatever the model or a user wrote — `<script>`, `<img onerror>` — shows as text. Links keep
 * only http(s) and mailto targets and open without referrer.
 */
export function Markdown({ text }: { text: string }) {
  return <div className="md">{blocks(text)}</div>;
}

const SAFE_URL = /^(https?:\/\/|mailto:)[^\s<>"']+$/i;

function inline(text: string, key = 'i'): ReactNode[] {
  const out: ReactNode[] = [];
  // Order matters: code spans first so their content is never formatted.
  const re = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|(?<![\w])_([^_\s][^_]*)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const k = `${key}-${n++}`;
    if (m[2] !== undefined) out.push(<code key={k}>{m[2]}</code>);
    else if (m[3] !== undefined || m[4] !== undefined) out.push(<strong key={k}>{inline(m[3] ?? m[4] ?? '', k)}</strong>);
    else if (m[5] !== undefined || m[6] !== undefined) out.push(<em key={k}>{inline(m[5] ?? m[6] ?? '', k)}</em>);
    else if (m[7] !== undefined && m[8] !== undefined) {
      out.push(SAFE_URL.test(m[8]) ? <a key={k} href={m[8]} rel="noopener noreferrer nofollow" target="_blank">{inline(m[7], k)}</a> : m[0]);
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function withBreaks(lines: string[], key: string): ReactNode[] {
  return lines.map((l, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: lines of one rendered text never reorder
    <Fragment key={`${key}-${i}`}>
      {i > 0 && <br />}
      {inline(l, `${key}-${i}`)}
    </Fragment>
  ));
}

function blocks(text: string): ReactNode[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: ReactNode[] = [];
  let i = 0;
  const para: string[] = [];
  const flush = () => {
    if (para.length) out.push(<p key={`p${out.length}`}>{withBreaks(para.splice(0), `p${out.length}`)}</p>);
  };
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const fence = /^\s*(```+|~~~+)\s*([\w+-]*)\s*$/.exec(line);
    if (fence?.[1]) {
      flush();
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trim().startsWith(fence[1])) body.push(lines[i++] ?? '');
      i++;
      out.push(<pre key={`c${out.length}`} className="code"><code data-lang={fence[2] || undefined}>{body.join('\n')}</code></pre>);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading?.[1]) {
      flush();
      const level = Math.min(heading[1].length + 2, 6);
      const H = `h${level}` as 'h3';
      out.push(<H key={`h${out.length}`}>{inline(heading[2] ?? '', `h${out.length}`)}</H>);
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      out.push(<hr key={`r${out.length}`} />);
      i++;
      continue;
    }
    const list = /^\s*([-*+]|\d+[.)])\s+/.exec(line);
    if (list) {
      flush();
      const ordered = /\d/.test(list[1] ?? '');
      const items: string[] = [];
      while (i < lines.length) {
        const m = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(lines[i] ?? '');
        if (m && /\d/.test(m[1] ?? '') === ordered) items.push(m[2] ?? '');
        else if (items.length && /^\s{2,}\S/.test(lines[i] ?? '')) items[items.length - 1] += ` ${(lines[i] ?? '').trim()}`;
        else break;
        i++;
      }
      const k = `l${out.length}`;
      // biome-ignore lint/suspicious/noArrayIndexKey: items of one rendered text never reorder
      const lis = items.map((it, j) => <li key={`${k}-${j}`}>{inline(it, `${k}-${j}`)}</li>);
      out.push(ordered ? <ol key={k}>{lis}</ol> : <ul key={k}>{lis}</ul>);
      continue;
    }
    if (/^\s*>/.test(line)) {
      flush();
      const quoted: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i] ?? '')) quoted.push((lines[i++] ?? '').replace(/^\s*>\s?/, ''));
      out.push(<blockquote key={`q${out.length}`}>{blocks(quoted.join('\n'))}</blockquote>);
      continue;
    }
    if (line.trim() === '') flush();
    else para.push(line);
    i++;
  }
  flush();
  return out;
}
