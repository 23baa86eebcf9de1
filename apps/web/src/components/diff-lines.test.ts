import { describe, expect, it } from 'vitest';
import { DIFF_FOLD_LINES, diffLines, foldDiff } from './diff-lines.ts';

describe('diffLines', () => {
  it('classifies header, hunk, added, removed and context lines', () => {
    const diff = [
      'diff --git a/a.txt b/a.txt',
      'index 1..2 100644',
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      '',
    ].join('\n');
    expect(diffLines(diff).map((l) => l.kind)).toEqual(['meta', 'meta', 'meta', 'meta', 'hunk', 'context', 'del', 'add', 'context']);
  });
  it('a removed line starting with "--" inside a hunk is a removal, not a header', () => {
    expect(diffLines('@@ -1 +1 @@\n--- old\n+++ new\n').map((l) => l.kind)).toEqual(['hunk', 'del', 'add']);
  });
});

describe('foldDiff', () => {
  const lines = Array.from({ length: DIFF_FOLD_LINES + 5 }, (_, i) => ({ kind: 'context' as const, text: ` ${i}` }));
  it('folds a long diff until unfolded', () => {
    expect(foldDiff(lines, false)).toMatchObject({ hidden: 5 });
    expect(foldDiff(lines, false).shown).toHaveLength(DIFF_FOLD_LINES);
    expect(foldDiff(lines, true)).toMatchObject({ hidden: 0 });
    expect(foldDiff(lines.slice(0, 3), false)).toMatchObject({ hidden: 0 });
  });
});
