'use client';
import { Fragment, type ReactNode } from 'react';
import { CodeBlock, FoldedAnswer } from './code-block.tsx';
import { type Block, parseBlocks } from './markdown-blocks.ts';

/**
 * A small Markdown renderer for answers: it builds React elements only (never HTML strings), so
 * whatever the model or a user wrote — `<script>`, `<img onerror>` — shows as text. Links keep
 * only http(s) and mailto targets and open without referrer. A long answer is folded.
 */
export function Markdown({ text }: { text: string }) {
  const lines = text.split('\n').length;
  return (
    <FoldedAnswer lines={lines}>
      <div className="md">{renderBlocks(parseBlocks(text), 'b')}</div>
    </FoldedAnswer>
  );
}

const SAFE_URL = /^(https?:\/\/|mailto:)[^\s<>"']+$/i;

function link(href: string, children: ReactNode, key: string): ReactNode {
  return (
    <a key={key} href={href} rel="noopener noreferrer nofollow" target="_blank">
      {children}
    </a>
  );
}

/** `links` false inside a link's own text: an anchor never holds another. */
function inline(text: string, key = 'i', links = true): ReactNode[] {
  const out: ReactNode[] = [];
  // Order matters: code spans first so their content is never formatted; a bare URL last.
  const re =
    /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|(?<![\w])_([^_\s][^_]*)_(?![\w])|~~([^~]+)~~|\[([^\]]+)\]\(([^)\s]+)\)|(?<![\w/])(https?:\/\/[^\s<>"'`]+[^\s<>"'`.,;:!?)\]])/g;
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const k = `${key}-${n++}`;
    if (m[2] !== undefined) out.push(<code key={k}>{m[2]}</code>);
    else if (m[3] !== undefined || m[4] !== undefined) out.push(<strong key={k}>{inline(m[3] ?? m[4] ?? '', k, links)}</strong>);
    else if (m[5] !== undefined || m[6] !== undefined) out.push(<em key={k}>{inline(m[5] ?? m[6] ?? '', k, links)}</em>);
    else if (m[7] !== undefined) out.push(<del key={k}>{inline(m[7], k, links)}</del>);
    else if (m[8] !== undefined && m[9] !== undefined) out.push(links && SAFE_URL.test(m[9]) ? link(m[9], inline(m[8], k, false), k) : m[0]);
    else if (m[10] !== undefined) out.push(links && SAFE_URL.test(m[10]) ? link(m[10], m[10], k) : m[0]);
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

function renderBlocks(blocks: Block[], key: string): ReactNode[] {
  return blocks.map((b, i) => renderBlock(b, `${key}${i}`));
}

function renderBlock(b: Block, k: string): ReactNode {
  switch (b.type) {
    case 'para':
      return <p key={k}>{withBreaks(b.lines, k)}</p>;
    case 'heading': {
      // The page has its own h1 and h2: an answer's headings start at h3.
      const H = `h${Math.min(b.level + 2, 6)}` as 'h3';
      return <H key={k}>{inline(b.text, k)}</H>;
    }
    case 'hr':
      return <hr key={k} />;
    case 'code':
      return <CodeBlock key={k} lang={b.lang} body={b.body} />;
    case 'quote':
      return <blockquote key={k}>{renderBlocks(b.blocks, `${k}-`)}</blockquote>;
    case 'list': {
      // A tight item (its first block a paragraph) shows that paragraph's text without a <p>.
      const items = b.items.map((blocks, j) => {
        const [first, ...rest] = blocks;
        const ik = `${k}-${j}`;
        return (
          <li key={ik}>
            {first?.type === 'para' ? withBreaks(first.lines, ik) : first && renderBlock(first, `${ik}f`)}
            {renderBlocks(rest, `${ik}-`)}
          </li>
        );
      });
      return b.ordered ? (
        <ol key={k} start={b.start === 1 ? undefined : b.start}>
          {items}
        </ol>
      ) : (
        <ul key={k}>{items}</ul>
      );
    }
    case 'table': {
      // Columns and rows of one rendered text never reorder: their places are their keys.
      const cols = b.header.map((_, j) => `${k}c${j}`);
      const rows = b.rows.map((_, r) => `${k}r${r}`);
      return (
        <div key={k} className="table-wrap md-table">
          <table>
            <thead>
              <tr>
                {b.header.map((c, j) => (
                  <th key={cols[j]} scope="col" style={alignStyle(b.align[j])}>
                    {inline(c, `${cols[j]}h`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {b.rows.map((row, r) => (
                <tr key={rows[r]}>
                  {row.map((c, j) => (
                    <td key={cols[j]} style={alignStyle(b.align[j])}>
                      {inline(c, `${rows[r]}${cols[j]}`)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    default:
      return b satisfies never;
  }
}

const alignStyle = (a: 'left' | 'center' | 'right' | null | undefined) => (a ? { textAlign: a } : undefined);
