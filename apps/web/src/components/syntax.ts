/**
 * A small syntax colourer for the changes view's diffs: keywords, strings, comments and numbers of
 * the common languages, one line at a time (a diff shows fragments, so no state crosses lines: a
 * line inside a multi-line comment or string is coloured as code). Pure and bounded: a line longer
 * than MAX_COLOUR_LINE is left plain (minified files, data), and the scan is linear in the line.
 */

export type TokenKind = 'kw' | 'str' | 'com' | 'num' | 'plain';
export type Token = { kind: TokenKind; text: string };

export const LANGS = ['js', 'py', 'go', 'rust', 'json', 'sh', 'css', 'md', 'c', 'java', 'ruby', 'yaml', 'sql'] as const;
export type Lang = (typeof LANGS)[number];

/** Lines longer than this are shown plain: colouring them helps nobody and costs a phone. */
export const MAX_COLOUR_LINE = 2000;

interface LangRules {
  keywords: ReadonlySet<string>;
  /** Starters of a comment running to the end of the line. */
  line: readonly string[];
  /** A comment with an end on the same line, or running to the end of it. */
  block?: readonly [string, string];
  quotes: string;
  /** `#` starts a comment only at the line's start or after a space (shell: `$#`, `${#x}`). */
  hashAfterSpace?: boolean;
}

const words = (s: string): ReadonlySet<string> => new Set(s.split(/\s+/).filter(Boolean));

const JS = words(
  `abstract as async await break case catch class const continue debugger declare default delete do else enum export extends false finally
   for from function get if implements import in instanceof interface let new null of private protected public readonly return satisfies set
   static super switch this throw true try type typeof undefined var void while with yield`,
);
const C_LIKE = words(
  `auto break case char const continue default do double else enum extern float for goto if inline int long register return short signed
   sizeof static struct switch typedef union unsigned void volatile while class namespace template typename public private protected virtual
   new delete true false nullptr this bool include define`,
);

const RULES: Record<Lang, LangRules> = {
  js: { keywords: JS, line: ['//'], block: ['/*', '*/'], quotes: `'"\`` },
  py: {
    keywords: words(
      `False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda
       nonlocal not or pass raise return try while with yield match case self`,
    ),
    line: ['#'],
    quotes: `'"`,
  },
  go: {
    keywords: words(
      `break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct
       switch type var nil true false iota`,
    ),
    line: ['//'],
    block: ['/*', '*/'],
    quotes: `'"\``,
  },
  rust: {
    keywords: words(
      `as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self
       static struct super trait true type unsafe use where while Some None Ok Err`,
    ),
    line: ['//'],
    block: ['/*', '*/'],
    quotes: `"`,
  },
  json: { keywords: words('true false null'), line: [], quotes: `"` },
  sh: {
    keywords: words('if then else elif fi for while until do done case esac in function return local export readonly set unset echo exit source'),
    line: ['#'],
    quotes: `'"`,
    hashAfterSpace: true,
  },
  css: { keywords: words('@media @import @supports @keyframes @font-face @layer !important'), line: [], block: ['/*', '*/'], quotes: `'"` },
  md: { keywords: new Set(), line: [], block: ['<!--', '-->'], quotes: '`' },
  c: { keywords: C_LIKE, line: ['//'], block: ['/*', '*/'], quotes: `'"` },
  java: {
    keywords: words(
      `abstract boolean break byte case catch char class const continue default do double else enum extends final finally float for if implements
       import instanceof int interface long new package private protected public return short static super switch this throw throws try void
       while true false null var val fun object when override data sealed`,
    ),
    line: ['//'],
    block: ['/*', '*/'],
    quotes: `'"`,
  },
  ruby: {
    keywords: words('def end if elsif else unless while until for in do return class module self nil true false and or not yield begin rescue ensure require'),
    line: ['#'],
    quotes: `'"`,
  },
  yaml: { keywords: words('true false null yes no on off'), line: ['#'], quotes: `'"`, hashAfterSpace: true },
  sql: {
    keywords: words(
      `select from where insert into values update set delete create table alter drop index primary key foreign references not null and or join
       left right inner outer on group by order having limit as distinct default unique SELECT FROM WHERE INSERT INTO VALUES UPDATE SET DELETE
       CREATE TABLE ALTER DROP INDEX PRIMARY KEY FOREIGN REFERENCES NOT NULL AND OR JOIN LEFT RIGHT INNER OUTER ON GROUP BY ORDER HAVING LIMIT AS
       DISTINCT DEFAULT UNIQUE`,
    ),
    line: ['--'],
    block: ['/*', '*/'],
    quotes: `'"`,
  },
};

const EXTENSIONS: Record<string, Lang> = {
  ts: 'js',
  tsx: 'js',
  js: 'js',
  jsx: 'js',
  mjs: 'js',
  cjs: 'js',
  mts: 'js',
  cts: 'js',
  py: 'py',
  pyi: 'py',
  go: 'go',
  rs: 'rust',
  json: 'json',
  jsonc: 'json',
  sh: 'sh',
  bash: 'sh',
  zsh: 'sh',
  css: 'css',
  scss: 'css',
  md: 'md',
  markdown: 'md',
  c: 'c',
  h: 'c',
  cc: 'c',
  cpp: 'c',
  hpp: 'c',
  java: 'java',
  kt: 'java',
  rb: 'ruby',
  yml: 'yaml',
  yaml: 'yaml',
  sql: 'sql',
};

/** The language a file's name says (its extension; a few well-known names), or null: shown plain. */
export function languageOf(path: string): Lang | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === 'Dockerfile' || name === 'Makefile') return 'sh';
  if (name.startsWith('.') && name.endsWith('rc') && !name.includes('.', 1)) return 'sh';
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  return EXTENSIONS[name.slice(dot + 1).toLowerCase()] ?? null;
}

const IDENT = /[A-Za-z_$@!][\w$-]*/y;
const JS_IDENT = /[A-Za-z_$][\w$]*/y;
const NUMBER = /(?:0[xX][\da-fA-F_]+|0[bB][01_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)[A-Za-z%]*/y;

function stringEnd(line: string, from: number, quote: string): number {
  for (let i = from + 1; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === quote) return i + 1;
  }
  return line.length;
}

/** A Markdown line: a heading or a list/quote marker is a keyword, `code` a string, the rest plain. */
function markdown(line: string): Token[] {
  const head = /^(\s{0,3}(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|>\s?))/.exec(line);
  const out: Token[] = [];
  let rest = line;
  if (head?.[1]) {
    // A heading is a keyword whole; a list or quote marker alone.
    const whole = head[1].trim().startsWith('#');
    out.push({ kind: 'kw', text: whole ? line : head[1] });
    if (whole) return out;
    rest = line.slice(head[1].length);
  }
  return [...out, ...scan(rest, RULES.md)];
}

function scan(line: string, r: LangRules): Token[] {
  const out: Token[] = [];
  const push = (kind: TokenKind, text: string) => {
    const last = out[out.length - 1];
    if (last && last.kind === kind && kind === 'plain') last.text += text;
    else out.push({ kind, text });
  };
  const ident = r === RULES.css || r === RULES.md ? IDENT : JS_IDENT;
  let i = 0;
  while (i < line.length) {
    const ch = line[i] as string;
    if (r.block && line.startsWith(r.block[0], i)) {
      const end = line.indexOf(r.block[1], i + r.block[0].length);
      const stop = end < 0 ? line.length : end + r.block[1].length;
      push('com', line.slice(i, stop));
      i = stop;
      continue;
    }
    const lineComment = r.line.find((s) => line.startsWith(s, i));
    if (lineComment && (!r.hashAfterSpace || lineComment !== '#' || i === 0 || /\s/.test(line[i - 1] as string))) {
      push('com', line.slice(i));
      break;
    }
    if (r.quotes.includes(ch)) {
      const stop = stringEnd(line, i, ch);
      push('str', line.slice(i, stop));
      i = stop;
      continue;
    }
    const prev = i > 0 ? (line[i - 1] as string) : '';
    if (/\d/.test(ch) && !/[\w$.]/.test(prev)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(line);
      if (m) {
        push('num', m[0]);
        i += m[0].length;
        continue;
      }
    }
    ident.lastIndex = i;
    const w = /[\w$]/.test(prev) ? null : ident.exec(line);
    if (w) {
      push(r.keywords.has(w[0]) ? 'kw' : 'plain', w[0]);
      i += w[0].length;
      continue;
    }
    push('plain', ch);
    i++;
  }
  return out;
}

/** One line of code as tokens; plain as one token when the language is unknown or the line too long. */
export function tokenize(line: string, lang: Lang | null): Token[] {
  if (line === '') return [];
  if (lang === null || line.length > MAX_COLOUR_LINE) return [{ kind: 'plain', text: line }];
  return lang === 'md' ? markdown(line) : scan(line, RULES[lang]);
}
