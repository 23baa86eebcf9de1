import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown } from './markdown.tsx';

const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe('Markdown', () => {
  it('renders the usual answer shapes', () => {
    const out = html('# Title\n\nSome **bold**, *em* and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n```ts\nconst a = 1 < 2;\n```\n\n> quoted\n\n[docs](https://example.com/x)');
    expect(out).toContain('<h3>Title</h3>');
    expect(out).toContain('<strong>bold</strong>');
    expect(out).toContain('<em>em</em>');
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
});
