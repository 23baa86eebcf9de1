// Reads the answer a CLI is drawing for the running turn from its rendered screen (tmux
// `capture-pane`, scrollback included). Pure: the structure of each pinned CLI's transcript, as
// captured from the real binaries (fixtures/, docs/cli-facts.md "The answer on the screen"):
//
// Claude Code 2.1.197           Codex 0.171.0
//   ❯ <prompt line>               › <prompt line>
//     <prompt continuation>         <prompt continuation>
//   ● <answer line>               • <answer line>
//     <answer continuation>         <answer continuation>
//   ✻ Churned for 2s              (blank) Worked for 2s • 19:29
//   ──────── (input box rule)     › <composer>
//
// The turn is found by its prompt (the text Bria typed): nothing is read above it, so an earlier
// turn's answer is never taken for this one's. A screen that does not have this shape yields null:
// no draft, and nothing is lost (the journal's final is the answer either way).
import type { Executor } from '@bria/core/protocol';

export interface DraftRead {
  /** The screen as `capture-pane -p` prints it (lines, no escape sequences). */
  screen: string;
  /** The text typed for the running turn (its first line finds the turn on the screen). */
  prompt: string;
}

const CLAUDE = { prompt: '❯ ', bullet: '● ', toolResult: /^\s+⎿/ } as const;
const CODEX = { prompt: '› ', bullet: '• ', toolResult: /^\s+└/ } as const;
const RULE = /^─{8,}/;
// Codex's status line while it works (`• Working (0s • esc to interrupt)`), not an answer.
const CODEX_STATUS = /esc to interrupt\)\s*$/;
// Codex's line under a finished turn (`Worked for 2s • 19:29`, `Worked for <1s • 19:29`).
const CODEX_WORKED = /^\s{2}Worked for \S+ • \d{1,2}:\d{2}\s*$/;

/** The draft text for the turn whose prompt is `read.prompt`, or null when the screen is not understood. */
export function readDraft(executor: Executor, read: DraftRead): string | null {
  return executor === 'claude' ? claudeDraft(read) : codexDraft(read);
}

/** True when a transcript prompt line shows the first line of what was typed (cut by the screen's width, or folded by Claude). */
function promptMatches(line: string, marker: string, prompt: string): boolean {
  // Pasted images show as `[Image #N]` in front of the typed text (executors/image-paste.ts): not compared.
  const images = (s: string) => s.replace(/^\[Image #\d+\](?: \[Image #\d+\])* */, '');
  const shown = images(line.slice(marker.length).trimEnd());
  const first = images((prompt.split('\n')[0] ?? '').replaceAll('\t', '    ').trimEnd());
  if (shown.length === 0) return first.length === 0;
  // Claude folds a long paste into `[Pasted text #1 +N lines]`.
  if (marker === CLAUDE.prompt && /^\[Pasted text #\d+/.test(shown)) return true;
  return first.startsWith(shown) || shown.startsWith(first);
}

/** Index of the last transcript line that shows the turn's prompt before `end`, or -1. */
function findPrompt(lines: readonly string[], end: number, marker: string, prompt: string): number {
  for (let i = end - 1; i >= 0; i--) {
    if (lines[i]!.startsWith(marker) && promptMatches(lines[i]!, marker, prompt)) return i;
  }
  return -1;
}

/** The blocks (first line at column 0, then lines indented by two spaces or blank) after `from`, up to `end`. */
function blocks(lines: readonly string[], from: number, end: number): string[][] {
  const out: string[][] = [];
  let cur: string[] | null = null;
  for (let i = from; i < end; i++) {
    const l = lines[i]!;
    if (l === '' || l.startsWith('  ')) {
      cur?.push(l);
      continue;
    }
    cur = [l];
    out.push(cur);
  }
  return out;
}

/** An answer block's text: the bullet and the two-space indent removed, trailing blank lines dropped. */
function blockText(block: readonly string[], bullet: string): string {
  const lines = [block[0]!.slice(bullet.length), ...block.slice(1).map((l) => l.slice(2))];
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines.map((l) => l.trimEnd()).join('\n');
}

function lastAnswer(bs: readonly string[][], bullet: string, toolResult: RegExp, skip: (b: readonly string[]) => boolean): string | null {
  for (let i = bs.length - 1; i >= 0; i--) {
    const b = bs[i]!;
    if (!b[0]!.startsWith(bullet) || skip(b)) continue;
    // A tool call (`● Bash(…)` / `• Ran …`) has its result drawn under it; it is not answer text.
    if (b.slice(1).some((l) => toolResult.test(l))) continue;
    const text = blockText(b, bullet);
    return text.trim() === '' ? null : text;
  }
  return null;
}

function claudeDraft({ screen, prompt }: DraftRead): string | null {
  const lines = screen.split('\n').map((l) => l.trimEnd());
  // The input box (`❯` + NO-BREAK SPACE between two rules) ends the transcript; a dialog drawn in
  // its place (a permission request) starts with one rule, so then the last rule ends it.
  const rules = lines.flatMap((l, i) => (RULE.test(l) ? [i] : []));
  if (rules.length === 0) return null;
  const boxTop = rules[rules.length - 2];
  const end = boxTop !== undefined && /^❯(\u00a0|$)/.test(lines[boxTop + 1] ?? '') ? boxTop : rules[rules.length - 1]!;
  const at = findPrompt(lines, end, CLAUDE.prompt, prompt);
  if (at < 0) return null;
  const bs = blocks(lines, at + 1, end);
  return lastAnswer(bs, CLAUDE.bullet, CLAUDE.toolResult, () => false);
}

function codexDraft({ screen, prompt }: DraftRead): string | null {
  const lines = screen.split('\n').map((l) => l.trimEnd());
  // The composer is the last prompt-marked line; the turn's prompt is an earlier one.
  let composer = -1;
  for (let i = lines.length - 1; i >= 0 && composer < 0; i--) if (lines[i]!.startsWith(CODEX.prompt)) composer = i;
  if (composer < 0) return null;
  const at = findPrompt(lines, composer, CODEX.prompt, prompt);
  if (at < 0) return null;
  const body = lines.slice(0, composer).map((l) => (CODEX_WORKED.test(l) ? '' : l));
  const bs = blocks(body, at + 1, composer);
  return lastAnswer(bs, CODEX.bullet, CODEX.toolResult, (b) => CODEX_STATUS.test(b[0]!));
}
