import { describe, expect, it } from 'vitest';
import { htmlProblems } from './check-html.ts';
import { markdownToHtml, renderFinal, splitHtml, visibleText } from './index.ts';

const squash = (s: string) => s.replace(/\s+/g, '');

function expectSafe(parts: string[], limit = 4096) {
  for (const p of parts) {
    expect(htmlProblems(p), p.slice(0, 200)).toEqual([]);
    expect(visibleText(p).length).toBeLessThanOrEqual(limit);
    expect(visibleText(p).trim().length).toBeGreaterThan(0);
  }
}

describe('markdownToHtml', () => {
  it.each([
    ['# Heading', '<b>Heading</b>'],
    ['**bold** and *it* and __b2__ and _i2_', '<b>bold</b> and <i>it</i> and <b>b2</b> and <i>i2</i>'],
    ['~~gone~~', '<s>gone</s>'],
    ['use `a < b` here', 'use <code>a &lt; b</code> here'],
    ['``code with ` tick``', '<code>code with ` tick</code>'],
    ['snake_case_name stays', 'snake_case_name stays'],
    ['2 * 3 * 4', '2 * 3 * 4'],
    ['[site](https://example.com/a?b=1&c=2)', '<a href="https://example.com/a?b=1&amp;c=2">site</a>'],
    ['[x](javascript:alert(1))', '[x](javascript:alert(1))'],
    ['<script>alert("x")</script>', '&lt;script&gt;alert("x")&lt;/script&gt;'],
    ['- one\n* two\n  + nested', '• one\n• two\n  • nested'],
    ['1. first\n2) second', '1. first\n2) second'],
    ['> quoted **text**', '<blockquote>quoted <b>text</b></blockquote>'],
    ['**bold *and italic***', '<b>bold <i>and italic</i></b>'],
    ['\\*not italic\\*', '*not italic*'],
    ['a & b', 'a &amp; b'],
  ])('%j', (md, html) => {
    expect(markdownToHtml(md)).toBe(html);
  });

  it('fenced code keeps its language and escapes its body', () => {
    expect(markdownToHtml('```python\nif a < b and c > d: print("&")\n```')).toBe(
      '<pre><code class="language-python">if a &lt; b and c &gt; d: print("&amp;")</code></pre>',
    );
  });

  it('an unclosed fence runs to the end and is closed', () => {
    const html = markdownToHtml('text\n```\ncode **not bold**\nmore');
    expect(html).toBe('text\n<pre>code **not bold**\nmore</pre>');
  });

  it('tables become aligned preformatted text', () => {
    expect(markdownToHtml('| name | n |\n|------|---|\n| α | 10 |\n| <b> | 2 |')).toBe('<pre>name | n\n-----+---\nα    | 10\n&lt;b&gt;  | 2</pre>');
  });

  it.each([
    '```',
    '`',
    '``',
    '`a``',
    '**',
    '***',
    '**a',
    'a**',
    '*a **b* c**',
    '_a __b_ c__',
    '[a](',
    '[a](b',
    '[',
    '](',
    '<b>not a tag</b>',
    '</pre>',
    '&amp;',
    '&#x41;',
    '&',
    '<',
    '>',
    '"',
    '\\',
    '```js\n</code></pre><b>',
    '| a |',
    '|',
    '> ',
    '#',
    '# ',
    '- ',
    '~~~\n```\n~~~',
    '****',
    '*`*`*',
    '[**a**](https://x.y)',
    '`` ` ``',
    '**a `b** c`',
    '_a `_` b_',
    '[a `]`](https://x.y)',
  ])('adversarial %j stays balanced', (md) => {
    const html = markdownToHtml(md);
    expect(htmlProblems(html)).toEqual([]);
  });
});

describe('splitHtml', () => {
  it('keeps a short answer whole', () => {
    expect(renderFinal('hello **world**')).toEqual(['hello <b>world</b>']);
  });

  it('splits a 20k-character answer at line breaks, within the limit, losing nothing', () => {
    const md = Array.from({ length: 400 }, (_, i) => `Line ${i}: some **bold** text and \`code ${i}\` & more words here`).join('\n');
    const parts = renderFinal(md);
    expect(md.length).toBeGreaterThan(20_000);
    expect(parts.length).toBeGreaterThanOrEqual(5);
    expectSafe(parts);
    for (const p of parts.slice(0, -1)) expect(visibleText(p).length).toBeGreaterThan(2048);
    expect(squash(parts.map(visibleText).join(''))).toBe(squash(visibleText(markdownToHtml(md))));
    // Every part starts at a line start: no line is cut in the middle.
    for (const p of parts) expect(visibleText(p)).toMatch(/^Line \d+:/);
  });

  it('a split code block is closed and reopened with its language', () => {
    const md = `\`\`\`ts\n${Array.from({ length: 600 }, (_, i) => `const v${i} = a < b && c > d;`).join('\n')}\n\`\`\``;
    const parts = renderFinal(md);
    expect(parts.length).toBeGreaterThan(1);
    expectSafe(parts);
    for (const p of parts) {
      expect(p.startsWith('<pre><code class="language-ts">')).toBe(true);
      expect(p.endsWith('</code></pre>')).toBe(true);
    }
  });

  it('never cuts an entity, a tag or a surrogate pair, even without any break point', () => {
    const emoji = '😀'; // two UTF-16 units
    const html = `<b>${`${emoji}&amp;x`.repeat(3000)}</b>`;
    for (const limit of [4096, 4095, 100, 7, 3]) {
      const parts = splitHtml(html, limit);
      expectSafe(parts, limit);
      expect(parts.map(visibleText).join('')).toBe(visibleText(html));
    }
  });

  it('one unbreakable word longer than the limit is cut between code points', () => {
    const word = 'ж'.repeat(10_000);
    const parts = renderFinal(word);
    expect(parts.map((p) => p.length)).toEqual([4096, 4096, 1808]);
    expect(parts.join('')).toBe(word);
  });

  it('nested markup across a cut is reopened in order', () => {
    const parts = splitHtml('<blockquote><b>aaaa <i>bbbb cccc</i> dddd</b></blockquote>', 10);
    expectSafe(parts, 10);
    expect(parts[1]).toMatch(/^<blockquote><b><i>/);
  });

  it('random adversarial Markdown always renders to safe parts', () => {
    const atoms = [
      '**',
      '*',
      '_',
      '__',
      '`',
      '```',
      '```py\n',
      '\n',
      ' ',
      '<',
      '>',
      '&',
      '[a](https://e.x)',
      '| a | b |\n',
      '# ',
      '- ',
      '> ',
      '😀',
      'ж',
      'word',
      '~~',
      '\\',
      '\n\n',
    ];
    let seed = 42;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let n = 0; n < 300; n++) {
      let md = '';
      const len = Math.floor(rnd() * 400);
      for (let k = 0; k < len; k++) md += atoms[Math.floor(rnd() * atoms.length)];
      const limit = 20 + Math.floor(rnd() * 200);
      const parts = renderFinal(md, limit);
      if (visibleText(markdownToHtml(md)).trim()) expectSafe(parts, limit);
      expect(squash(parts.map(visibleText).join(''))).toBe(squash(visibleText(markdownToHtml(md))) || '…');
    }
  });
});
