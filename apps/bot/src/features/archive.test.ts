import { describe, expect, it } from 'vitest';
import { markMatches } from './archive.ts';

describe('archive search snippets in Telegram', () => {
  it('markMatches escapes the text and bolds only the marked words', () => {
    expect(markMatches('a <b> \u0002word\u0003 & \u0002two\u0003 end')).toBe('a &lt;b&gt; <b>word</b> &amp; <b>two</b> end');
    expect(markMatches('no marks at all')).toBe('no marks at all');
  });
});
