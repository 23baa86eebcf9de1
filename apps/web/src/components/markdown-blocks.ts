/**
 * The block structure of a Markdown answer (the parts of CommonMark and GitHub's extensions that
 * answers use): pure data, so the renderer never sees raw markup and tests read the structure.
 */
export type Align = 'left' | 'center' | 'right' | null;

export type Block =
  | { type: 'para'; lines: string[] }
  | { type: 'heading'; level: number; text: string }
  | { type: 'hr' }
  | { type: 'code'; lang: string | null; body: string }
  | { type: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { type: 'quote'; blocks: Block[] }
  | { type: 'table'; align: Align[]; header: string[]; rows: string[][] };

/** Quotes and lists deeper than this are shown as text: a hostile answer cannot nest without end. */
const MAX_DEPTH = 8;

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const ITEM = /^( *)([-*+]|(\d{1,9})[.)])(\s+|$)(.*)$/;
const QUOTE = /^ {0,3}>/;
const DELIMITER_CELL = /^\s*(:?)-+(:?)\s*$/;

const indentOf = (line: string) => /^ */.exec(line)?.[0].length ?? 0;
const blank = (line: string | undefined) => line === undefined || line.trim() === '';

export function parseBlocks(text: string, depth = 0): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n');
  const out: Block[] = [];
  const para: string[] = [];
  const flush = () => {
    if (para.length) out.push({ type: 'para', lines: para.splice(0) });
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const fence = FENCE_OPEN.exec(line);
    if (fence?.[1]) {
      flush();
      const mark = fence[1];
      const close = new RegExp(`^ {0,3}${mark[0] === '`' ? '`' : '~'}{${mark.length},}\\s*$`);
      const body: string[] = [];
      i++;
      // An unclosed fence runs to the end of the answer, as on GitHub: nothing after it is lost.
      while (i < lines.length && !close.test(lines[i] ?? '')) body.push(lines[i++] ?? '');
      i++;
      out.push({ type: 'code', lang: fence[2] ? fence[2].slice(0, 40) : null, body: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading?.[1]) {
      flush();
      out.push({ type: 'heading', level: heading[1].length, text: heading[2] ?? '' });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      flush();
      out.push({ type: 'hr' });
      i++;
      continue;
    }
    const table = depth <= MAX_DEPTH ? parseTable(lines, i) : null;
    if (table) {
      flush();
      out.push(table.block);
      i = table.next;
      continue;
    }
    if (depth < MAX_DEPTH && ITEM.test(line) && !(para.length && !startsList(line))) {
      flush();
      const list = parseList(lines, i, depth);
      out.push(list.block);
      i = list.next;
      continue;
    }
    if (depth < MAX_DEPTH && QUOTE.test(line)) {
      flush();
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? '')) quoted.push((lines[i++] ?? '').replace(/^ {0,3}> ?/, ''));
      out.push({ type: 'quote', blocks: parseBlocks(quoted.join('\n'), depth + 1) });
      continue;
    }
    if (blank(line)) flush();
    else para.push(line.trim());
    i++;
  }
  flush();
  return out;
}

/** Inside a paragraph only a bullet or "1." starts a list (so "2019. was a year" stays text). */
function startsList(line: string): boolean {
  const m = ITEM.exec(line);
  return m !== null && (m[3] === undefined || m[3] === '1') && (m[5] ?? '').trim() !== '';
}

function parseList(lines: string[], from: number, depth: number): { block: Block; next: number } {
  const first = ITEM.exec(lines[from] ?? '');
  const indent = first?.[1]?.length ?? 0;
  const ordered = first?.[3] !== undefined;
  const items: Block[][] = [];
  let i = from;
  while (i < lines.length) {
    const m = ITEM.exec(lines[i] ?? '');
    if (!m || (m[1]?.length ?? 0) !== indent || (m[3] !== undefined) !== ordered) break;
    // Continuation lines are those indented past the marker; they are re-read as blocks of the item.
    const body = [m[5] ?? ''];
    const contentAt = indent + (m[2]?.length ?? 1) + 1;
    i++;
    while (i < lines.length) {
      const l = lines[i] ?? '';
      if (blank(l)) {
        let j = i;
        while (j < lines.length && blank(lines[j])) j++;
        if (j < lines.length && indentOf(lines[j] ?? '') > indent) {
          for (; i < j; i++) body.push('');
          continue;
        }
        break;
      }
      if (indentOf(l) <= indent) break;
      body.push(l.slice(Math.min(contentAt, indentOf(l))));
      i++;
    }
    items.push(parseBlocks(body.join('\n'), depth + 1));
    // A blank line between items keeps the list going.
    let j = i;
    while (j < lines.length && blank(lines[j])) j++;
    const again = ITEM.exec(lines[j] ?? '');
    if (j > i && again && (again[1]?.length ?? 0) === indent && (again[3] !== undefined) === ordered) i = j;
  }
  return { block: { type: 'list', ordered, start: ordered ? Number(first?.[3] ?? 1) : 1, items }, next: i };
}

/** The cells of a table row; `\|` is a pipe inside a cell. */
export function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let cell = '';
  for (let k = 0; k < s.length; k++) {
    const ch = s[k];
    if (ch === '\\' && s[k + 1] === '|') {
      cell += '|';
      k++;
    } else if (ch === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

/**
 * A GitHub table: a header row, then a delimiter row with as many cells (`:--`, `--:`, `:-:`).
 * Body rows end at a blank line or another block (fence, heading, quote, rule); short rows are
 * filled with empty cells and extra cells are dropped, as GitHub does.
 */
function parseTable(lines: string[], at: number): { block: Block; next: number } | null {
  const head = lines[at] ?? '';
  const delimiter = lines[at + 1];
  if (!head.includes('|') || delimiter === undefined || !delimiter.includes('-')) return null;
  const header = splitRow(head);
  const marks = splitRow(delimiter);
  if (marks.length !== header.length || !marks.every((c) => DELIMITER_CELL.test(c))) return null;
  const align = marks.map((c): Align => {
    const m = DELIMITER_CELL.exec(c);
    return m?.[1] && m[2] ? 'center' : m?.[2] ? 'right' : m?.[1] ? 'left' : null;
  });
  const rows: string[][] = [];
  let i = at + 2;
  while (i < lines.length && !blank(lines[i]) && !endsTable(lines[i] ?? '')) {
    const cells = splitRow(lines[i++] ?? '');
    rows.push(header.map((_, c) => cells[c] ?? ''));
  }
  return { block: { type: 'table', align, header, rows }, next: i };
}

const endsTable = (line: string) => FENCE_OPEN.test(line) || HEADING.test(line) || QUOTE.test(line) || RULE.test(line);
