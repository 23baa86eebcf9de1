import { describe, expect, it } from 'vitest';
import { splitSnippet } from './snippet.ts';

describe('splitSnippet', () => {
  it('marks the words between \\u0002 and \\u0003', () => {
    expect(splitSnippet('I profiled the \u0002hummingbird\u0003 renderer')).toEqual([
      { text: 'I profiled the ', marked: false },
      { text: 'hummingbird', marked: true },
      { text: ' renderer', marked: false },
    ]);
  });
  it('handles several marks, marks at the edges and adjacent marks', () => {
    expect(splitSnippet('\u0002a\u0003 b \u0002c\u0003\u0002d\u0003')).toEqual([
      { text: 'a', marked: true },
      { text: ' b ', marked: false },
      { text: 'cd', marked: true },
    ]);
  });
  it('keeps markup as text and drops stray or unclosed markers', () => {
    expect(splitSnippet('<b>x</b>')).toEqual([{ text: '<b>x</b>', marked: false }]);
    expect(splitSnippet('x\u0003y')).toEqual([{ text: 'xy', marked: false }]);
    expect(splitSnippet('x \u0002open')).toEqual([{ text: 'x open', marked: false }]);
    expect(splitSnippet('')).toEqual([]);
  });
});
