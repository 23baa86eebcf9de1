/** One line of a unified diff, as the changes view colours it. */
export type DiffLine = { kind: 'meta' | 'hunk' | 'add' | 'del' | 'context'; text: string };

/** Lines shown of a long file's diff before "Show all" (phones scroll a long way otherwise). */
export const DIFF_FOLD_LINES = 80;

/**
 * A unified diff's lines by kind: the file header (`diff --git`, `index`, `---`/`+++`, modes) is
 * `meta`, `@@` starts a hunk, then `+`/`-`/context. A trailing newline adds no empty line.
 */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff.split('\n');
  let inHunk = false;
  return lines.map((text) => {
    if (text.startsWith('@@')) {
      inHunk = true;
      return { kind: 'hunk', text };
    }
    if (!inHunk || text.startsWith('diff --git ')) {
      inHunk = false;
      return { kind: 'meta', text };
    }
    if (text.startsWith('+')) return { kind: 'add', text };
    if (text.startsWith('-')) return { kind: 'del', text };
    return { kind: 'context', text };
  });
}

/** The lines to show: all, or the first DIFF_FOLD_LINES with how many are folded away. */
export function foldDiff(lines: DiffLine[], unfolded: boolean): { shown: DiffLine[]; hidden: number } {
  if (unfolded || lines.length <= DIFF_FOLD_LINES) return { shown: lines, hidden: 0 };
  return { shown: lines.slice(0, DIFF_FOLD_LINES), hidden: lines.length - DIFF_FOLD_LINES };
}
