/** A piece of an archive hit's snippet: `marked` pieces are the words the search matched. */
export interface SnippetPiece {
  text: string;
  marked: boolean;
}

const OPEN = '\u0002';
const CLOSE = '\u0003';

/**
 * The database marks matched words between \u0002 and \u0003 (archive.list `match.snippet`). The
 * snippet is conversation text, so it is never parsed as HTML: it is split on the markers and each
 * piece is rendered as text (a `<mark>` around the matched ones). A stray or unclosed marker is dropped.
 */
export function splitSnippet(snippet: string): SnippetPiece[] {
  const out: SnippetPiece[] = [];
  const push = (text: string, marked: boolean) => {
    if (!text) return;
    const last = out.at(-1);
    if (last && last.marked === marked) last.text += text;
    else out.push({ text, marked });
  };
  let rest = snippet;
  while (rest.length > 0) {
    const open = rest.indexOf(OPEN);
    if (open === -1) {
      push(rest.replaceAll(CLOSE, ''), false);
      break;
    }
    push(rest.slice(0, open).replaceAll(CLOSE, ''), false);
    const after = rest.slice(open + 1);
    const close = after.indexOf(CLOSE);
    const inner = close === -1 ? after : after.slice(0, close);
    push(inner.replaceAll(OPEN, ''), close !== -1);
    rest = close === -1 ? '' : after.slice(close + 1);
  }
  return out;
}
