import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { I18nProvider } from './i18n-context.tsx';
import { Markdown } from './markdown.tsx';
import { parseBlocks, splitRow } from './markdown-blocks.ts';

const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));
const htmlRu = (text: string) =>
  // biome-ignore lint/correctness/noChildrenProp: a .ts test file has no JSX; the provider requires `children` in its props type
  renderToStaticMarkup(createElement(I18nProvider, { locale: 'ru', children: createElement(Markdown, { text }) }));
const lines = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join('\n');

describe('Markdown', () => {
  it('renders the usual answer shapes', () => {
    const out = html(
      '# Title\n\nSome **bold**, *em*, ~~old~~ and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n```ts\nconst a = 1 < 2;\n```\n\n> quoted\n\n[docs](https://example.com/x)',
    );
    expect(out).toContain('<h3>Title</h3>');
    expect(out).toContain('<strong>bold</strong>');
    expect(out).toContain('<em>em</em>');
    expect(out).toContain('<del>old</del>');
    expect(out).toContain('<code>code</code>');
    expect(out).toContain('<ul><li>one</li><li>two</li></ul>');
    expect(out).toContain('<ol><li>first</li><li>second</li></ol>');
    expect(out).toContain('<pre class="code"><code data-lang="ts">const a = 1 &lt; 2;</code></pre>');
    expect(out).toContain('<blockquote><p>quoted</p></blockquote>');
    expect(out).toContain('<a href="https://example.com/x" rel="noopener noreferrer nofollow" target="_blank">docs</a>');
  });

  it('never lets markup or script URLs through', () => {
    const out = html('<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) **<b>hi</b>**\n\n```\n</code><script>1</script>\n```');
    expect(out).not.toMatch(/<script|<img|<b>|href="javascript/i);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('[x](javascript:alert(1))');
    expect(out).toContain('<strong>&lt;b&gt;hi&lt;/b&gt;</strong>');
  });

  it('shows a fenced block with its language label and a Copy button, in both locales', () => {
    const out = html('```python\nprint("hi")\n```');
    expect(out).toContain('<span class="code-lang" data-testid="code-lang">python</span>');
    expect(out).toMatch(/<button[^>]*data-testid="code-copy">Copy<\/button>/);
    expect(out).toContain('<code data-lang="python">print(&quot;hi&quot;)</code>');
    expect(htmlRu('```sh\nls\n```')).toMatch(/<button[^>]*data-testid="code-copy">Копировать<\/button>/);
  });

  it('closes a fence only with the same mark, at least as long, alone on its line', () => {
    const blocks = parseBlocks('````md\n```ts\nx\n```\n````\nafter');
    expect(blocks).toEqual([
      { type: 'code', lang: 'md', body: '```ts\nx\n```' },
      { type: 'para', lines: ['after'] },
    ]);
    expect(parseBlocks('~~~\na\n```\n~~~')).toEqual([{ type: 'code', lang: null, body: 'a\n```' }]);
  });

  it('runs an unclosed fence to the end, keeping every line as code text', () => {
    const blocks = parseBlocks('before\n```js\nlet a = "<script>";\n\n# not a heading');
    expect(blocks).toEqual([
      { type: 'para', lines: ['before'] },
      { type: 'code', lang: 'js', body: 'let a = "<script>";\n\n# not a heading' },
    ]);
    const out = html('```js\nlet a = "<script>";');
    expect(out).not.toContain('<script');
    expect(out).toContain('let a = &quot;&lt;script&gt;&quot;;');
  });

  it('folds a code block longer than 30 lines, and Copy still takes the whole code', () => {
    const out = html(`\`\`\`text\n${lines(40)}\n\`\`\``);
    expect(out).toContain('data-folded="true"');
    expect(out).toContain('line 20');
    expect(out).not.toContain('line 21');
    expect(out).toMatch(/<button[^>]*data-testid="fold-toggle">Show all \(40 lines\)<\/button>/);
    expect(htmlRu(`\`\`\`\n${lines(40)}\n\`\`\``)).toContain('Показать всё (строк: 40)');
    const short = html(`\`\`\`\n${lines(30)}\n\`\`\``);
    expect(short).toContain('line 30');
    expect(short).not.toContain('fold-toggle');
  });

  it('folds a whole answer longer than 80 lines', () => {
    const long = html(lines(81).replaceAll('\n', '\n\n'));
    expect(long).toContain('data-testid="answer-fold" data-folded="true"');
    expect(long).toContain('<div class="md-folded">');
    expect(long).toContain('Show all (161 lines)');
    expect(html(lines(80))).not.toContain('answer-fold');
  });

  it('renders a GitHub table with its alignments', () => {
    const out = html('| Name | Count | Mid | Any |\n|:--|--:|:-:|---|\n| a | 1 | x | `q|` |\n| **b** | 22 | y | z |');
    expect(out).toContain(
      '<th scope="col" style="text-align:left">Name</th><th scope="col" style="text-align:right">Count</th><th scope="col" style="text-align:center">Mid</th><th scope="col">Any</th>',
    );
    expect(out).toContain(
      '<tr><td style="text-align:left"><strong>b</strong></td><td style="text-align:right">22</td><td style="text-align:center">y</td><td>z</td></tr>',
    );
  });

  it('fills ragged table rows and drops extra cells; escaped pipes stay in the cell', () => {
    const [table] = parseBlocks('a | b\n--|--\n1\n1 | 2 | 3\nx \\| y | z');
    expect(table).toEqual({
      type: 'table',
      align: [null, null],
      header: ['a', 'b'],
      rows: [
        ['1', ''],
        ['1', '2'],
        ['x | y', 'z'],
      ],
    });
    expect(splitRow('| a | b |')).toEqual(['a', 'b']);
  });

  it('is not a table when the delimiter row does not match the header', () => {
    expect(parseBlocks('a | b | c\n--|--')).toEqual([{ type: 'para', lines: ['a | b | c', '--|--'] }]);
    expect(parseBlocks('a | b\nno dashes')).toEqual([{ type: 'para', lines: ['a | b', 'no dashes'] }]);
  });

  it('shows markup in a table cell as text', () => {
    const out = html('| x | y |\n|---|---|\n| <img src=x onerror=alert(1)> | [a](javascript:alert(1)) |');
    expect(out).not.toMatch(/<img|href="javascript/i);
    expect(out).toContain('<td>&lt;img src=x onerror=alert(1)&gt;</td><td>[a](javascript:alert(1))</td>');
  });

  it('nests lists by indentation and keeps ordered starts', () => {
    const out = html('- fruit\n  - apple\n  - pear\n- veg\n\n3. three\n4. four');
    expect(out).toContain('<ul><li>fruit<ul><li>apple</li><li>pear</li></ul></li><li>veg</li></ul>');
    expect(out).toContain('<ol start="3"><li>three</li><li>four</li></ol>');
  });

  it('keeps a code block inside a list item and a list going over blank lines', () => {
    const blocks = parseBlocks('1. run:\n\n   ```sh\n   npm test\n   ```\n\n2. done');
    expect(blocks).toEqual([
      {
        type: 'list',
        ordered: true,
        start: 1,
        items: [
          [
            { type: 'para', lines: ['run:'] },
            { type: 'code', lang: 'sh', body: 'npm test' },
          ],
          [{ type: 'para', lines: ['done'] }],
        ],
      },
    ]);
  });

  it('does not start a list inside a paragraph at a year', () => {
    expect(parseBlocks('It happened in\n2019. Then more.')).toEqual([{ type: 'para', lines: ['It happened in', '2019. Then more.'] }]);
  });

  it('renders every heading level below the page headings', () => {
    const out = html('# a\n## b\n### c\n#### d\n#hashtag');
    expect(out).toContain('<h3>a</h3><h4>b</h4><h5>c</h5><h6>d</h6><p>#hashtag</p>');
  });

  it('links bare http(s) URLs without trailing punctuation, never inside code or link text', () => {
    const out = html('See https://example.com/a?b=1. Or `https://no.example` and [https://x.example](https://x.example).');
    expect(out).toContain('See <a href="https://example.com/a?b=1" rel="noopener noreferrer nofollow" target="_blank">https://example.com/a?b=1</a>.');
    expect(out).toContain('<code>https://no.example</code>');
    expect(out).toContain('<a href="https://x.example" rel="noopener noreferrer nofollow" target="_blank">https://x.example</a>.');
    expect(html('mailto: [me](mailto:a@b.c)')).toContain('href="mailto:a@b.c"');
  });

  it('stops nesting quotes and lists deep in a hostile answer, showing the rest as text', () => {
    const deep = `${'>'.repeat(500)} deep`;
    const out = html(deep);
    expect((out.match(/<blockquote>/g) ?? []).length).toBeLessThanOrEqual(9);
    expect(out).toContain('deep');
    const list = Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
    const listOut = html(list);
    expect((listOut.match(/<ul>/g) ?? []).length).toBeLessThanOrEqual(9);
    expect(listOut).toContain('level 39');
  });
});
