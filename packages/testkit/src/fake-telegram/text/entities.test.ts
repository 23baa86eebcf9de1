import { describe, expect, it } from 'vitest';
import { ApiError } from '../api-error.ts';
import { formatText } from './formatted-text.ts';

const fmt = (text: string, parseMode?: string) => formatText({ text, parseMode, entities: undefined, kind: 'text' });
const failure = (text: string, parseMode?: string): string => {
  try {
    fmt(text, parseMode);
  } catch (error) {
    if (error instanceof ApiError) return `${error.code} ${error.description}`;
    throw error;
  }
  throw new Error('expected a parse failure');
};

describe('HTML parse mode', () => {
  it('turns tags into entities with UTF-16 offsets and decodes references', () => {
    const r = fmt('<b>bold</b> 😀 <i>it &amp; <u>u</u></i> &lt;x&gt; <a href="https://bria.dev">l</a>', 'HTML');
    expect(r?.text).toBe('bold 😀 it & u <x> l');
    expect(r?.entities).toEqual([
      { type: 'bold', offset: 0, length: 4 },
      { type: 'italic', offset: 8, length: 6 },
      { type: 'underline', offset: 13, length: 1 },
      { type: 'text_link', offset: 19, length: 1, url: 'https://bria.dev/' },
    ]);
  });

  it('merges <pre><code class="language-x"> into one pre entity with a language', () => {
    const r = fmt('<pre><code class="language-ts">let a = 1;</code></pre>', 'HTML');
    expect(r?.entities).toEqual([{ type: 'pre', offset: 0, length: 10, language: 'ts' }]);
  });

  it('reads <blockquote expandable>, spoilers and custom emoji', () => {
    const r = fmt('<blockquote expandable>long log</blockquote><tg-spoiler>s</tg-spoiler><tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>', 'HTML');
    expect(r?.text).toBe('long logs👍');
    expect(r?.entities).toEqual([
      { type: 'expandable_blockquote', offset: 0, length: 8 },
      { type: 'spoiler', offset: 8, length: 1 },
      { type: 'custom_emoji', offset: 9, length: 2, custom_emoji_id: '5368324170671202286' },
    ]);
    expect(failure('<b class>x</b>', 'HTML')).toContain('Expected equal sign in declaration of an attribute of the tag "b"');
  });

  it('rejects what the real server rejects, with its wording', () => {
    expect(failure('<b>open', 'HTML')).toBe(`400 Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`);
    expect(failure('a <foo>x</foo>', 'HTML')).toBe(`400 Bad Request: can't parse entities: Unsupported start tag "foo" at byte offset 2`);
    expect(failure('é</b>', 'HTML')).toBe(`400 Bad Request: can't parse entities: Unexpected end tag at byte offset 2`);
    expect(failure('<b><i>x</b></i>', 'HTML')).toContain('Unmatched end tag at byte offset 7, expected "</i>", found "</b>"');
    expect(failure('1 < 2', 'HTML')).toContain('Unsupported start tag "" at byte offset 2');
    expect(failure('<span>x</span>', 'HTML')).toContain('Tag "span" must have class "tg-spoiler"');
  });
});

describe('MarkdownV2 parse mode', () => {
  it('accepts escaped reserved characters and nested entities', () => {
    const r = fmt('*bold _it_* \\. \\(ok\\) `a.b` [site](https://bria.dev/x\\)y) __u__ ||s||', 'MarkdownV2');
    expect(r?.text).toBe('bold it . (ok) a.b site u s');
    expect(r?.entities).toEqual([
      { type: 'bold', offset: 0, length: 7 },
      { type: 'italic', offset: 5, length: 2 },
      { type: 'code', offset: 15, length: 3 },
      { type: 'text_link', offset: 19, length: 4, url: 'https://bria.dev/x)y' },
      { type: 'underline', offset: 24, length: 1 },
      { type: 'spoiler', offset: 26, length: 1 },
    ]);
  });

  it('reads a fenced block with a language and a line-start blockquote', () => {
    const r = fmt('```python\nprint(1)\n```\n>quoted', 'MarkdownV2');
    expect(r?.text).toBe('print(1)\n\nquoted');
    expect(r?.entities).toEqual([
      { type: 'pre', offset: 0, length: 9, language: 'python' },
      { type: 'blockquote', offset: 10, length: 6 },
    ]);
  });

  it('rejects unescaped reserved characters and unclosed entities', () => {
    expect(failure('Done.', 'MarkdownV2')).toBe(`400 Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'`);
    expect(failure('a-b', 'MarkdownV2')).toContain(`Character '-' is reserved`);
    expect(failure('x *bold', 'MarkdownV2')).toContain("Can't find end of Bold entity at byte offset 2");
    expect(failure('[a](https://x.y', 'MarkdownV2')).toContain("Can't find end of a URL at byte offset 4");
  });
});

describe('limits and plain text', () => {
  it('counts the limit after parsing and trims surrounding whitespace', () => {
    const body = 'a'.repeat(4096);
    expect(fmt(`<b>${body}</b>`, 'HTML')?.text).toHaveLength(4096);
    expect(failure(`${body}b`)).toBe('400 Bad Request: message is too long');
    expect(failure('   \n ')).toBe('400 Bad Request: message text is empty');
    expect(failure('x', 'Markdown3')).toBe('400 Bad Request: unsupported parse_mode');
    expect(fmt('  hi  ')?.text).toBe('hi');
  });

  it('finds commands, mentions and links by itself', () => {
    expect(fmt('/new@bria_bot see https://bria.dev/a. @someone')?.entities).toEqual([
      { type: 'bot_command', offset: 0, length: 13 },
      { type: 'url', offset: 18, length: 18 },
      { type: 'mention', offset: 38, length: 8 },
    ]);
  });

  it('legacy Markdown fails on an unclosed entity', () => {
    expect(fmt('*b* _i_', 'Markdown')?.entities).toEqual([
      { type: 'bold', offset: 0, length: 1 },
      { type: 'italic', offset: 2, length: 1 },
    ]);
    expect(failure('a_b', 'Markdown')).toContain("Can't find end of the entity starting at byte offset 1");
  });
});
