import { describe, expect, it } from 'vitest';
import { type Lang, languageOf, MAX_COLOUR_LINE, type TokenKind, tokenize } from './syntax.ts';

/** The coloured tokens of a line, as `kind:text` (plain text left out). */
const coloured = (line: string, lang: Lang | null) =>
  tokenize(line, lang)
    .filter((t) => t.kind !== 'plain')
    .map((t) => `${t.kind}:${t.text}`);

describe('languageOf', () => {
  it.each([
    ['src/a.ts', 'js'],
    ['apps/web/x.TSX', 'js'],
    ['lib/m.mjs', 'js'],
    ['tool.py', 'py'],
    ['cmd/main.go', 'go'],
    ['src/lib.rs', 'rust'],
    ['package.json', 'json'],
    ['scripts/run.sh', 'sh'],
    ['Dockerfile', 'sh'],
    ['.bashrc', 'sh'],
    ['app/globals.css', 'css'],
    ['docs/README.md', 'md'],
    ['x.c', 'c'],
    ['A.java', 'java'],
    ['.github/ci.yml', 'yaml'],
    ['q.sql', 'sql'],
    ['LICENSE', null],
    ['image.png', null],
    ['.gitignore', null],
    ['dir.ts/file', null],
  ] as const)('%s → %s', (path, lang) => {
    expect(languageOf(path)).toBe(lang);
  });
});

describe('tokenize', () => {
  it.each<[string, Lang | null, string[]]>([
    ['const x = 42; // answer', 'js', ['kw:const', 'num:42', 'com:// answer']],
    ["import { a } from 'b';", 'js', ['kw:import', 'kw:from', "str:'b'"]],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source under test
    ['const s = `a ${b}`;', 'js', ['kw:const', 'str:`a ${b}`']],
    ['"esc \\" still"; x', 'js', ['str:"esc \\" still"']],
    ['"unterminated', 'js', ['str:"unterminated']],
    ['a /* c */ b /* open', 'js', ['com:/* c */', 'com:/* open']],
    ['value1 = v2x + 0x1F + 1.5e3', 'js', ['num:0x1F', 'num:1.5e3']],
    ['return constant', 'js', ['kw:return']],
    ['def f(self): return None  # why', 'py', ['kw:def', 'kw:self', 'kw:return', 'kw:None', 'com:# why']],
    ["s = 'it''s'", 'py', ["str:'it'", "str:'s'"]],
    ['func main() { defer f() }', 'go', ['kw:func', 'kw:defer']],
    ['let mut v: Vec<u8> = Vec::new(); // x', 'rust', ['kw:let', 'kw:mut', 'com:// x']],
    ['{"a": 1, "b": [true, null]}', 'json', ['str:"a"', 'num:1', 'str:"b"', 'kw:true', 'kw:null']],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell source under test
    ['if [ "$#" -gt 0 ]; then echo ${#x} # done', 'sh', ['kw:if', 'str:"$#"', 'num:0', 'kw:then', 'kw:echo', 'com:# done']],
    ['# whole line', 'sh', ['com:# whole line']],
    ['.a { margin: 0 1.5rem; color: "x" } /* c */', 'css', ['num:0', 'num:1.5rem', 'str:"x"', 'com:/* c */']],
    ['@media (max-width: 640px) {', 'css', ['kw:@media', 'num:640px']],
    ['## A heading', 'md', ['kw:## A heading']],
    ['- item with `code`', 'md', ['kw:- ', 'str:`code`']],
    ['plain text', 'md', []],
    ['SELECT a FROM t -- why', 'sql', ['kw:SELECT', 'kw:FROM', 'com:-- why']],
    ['key: true # c', 'yaml', ['kw:true', 'com:# c']],
    ['const x = 1', null, []],
  ])('%s (%s)', (line, lang, want) => {
    expect(coloured(line, lang)).toEqual(want);
  });

  it('gives back every character, in order', () => {
    const lines = ['const a = "b" + 3; // c', '  x = {"k": [1, 2.5]}', "echo 'hi' # there", '/* a */ b', '  - `x` y'];
    for (const lang of ['js', 'json', 'sh', 'css', 'md', 'py'] as const) {
      for (const l of lines)
        expect(
          tokenize(l, lang)
            .map((t) => t.text)
            .join(''),
        ).toBe(l);
    }
  });

  it('an empty line has no tokens; a line above the bound is one plain token', () => {
    expect(tokenize('', 'js')).toEqual([]);
    const long = 'const a = 1; '.repeat(Math.ceil((MAX_COLOUR_LINE + 1) / 13));
    expect(tokenize(long, 'js')).toEqual([{ kind: 'plain' satisfies TokenKind, text: long }]);
    const atBound = 'x'.repeat(MAX_COLOUR_LINE);
    expect(tokenize(atBound, 'js')).toEqual([{ kind: 'plain', text: atBound }]);
  });

  it('odd lines: control characters, lone quotes, unicode', () => {
    // A number's letters are its suffix (10px, 1n, 1u8), so an escape sequence's 31m is one.
    expect(coloured('\u0000\u001b[31m"', 'js')).toEqual(['num:31m', 'str:"']);
    expect(coloured('const ж = "привет"', 'js')).toEqual(['kw:const', 'str:"привет"']);
    expect(
      tokenize('\\', 'js')
        .map((t) => t.text)
        .join(''),
    ).toBe('\\');
  });
});
