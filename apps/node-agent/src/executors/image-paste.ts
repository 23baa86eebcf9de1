// Typing a message with images so that the model gets each image as an image (README.md, "Images").
// Both CLIs turn a bracketed paste that is exactly the path of an image file into an `[Image #N]`
// attachment, one path per paste (Codex only for a path without whitespace), and put a space between
// two placeholders. The text follows as one more paste: Claude puts no space after the last
// placeholder, so ` <text>` is pasted and the journal holds `[Image #1] [Image #2] <text>`; Codex
// puts one, and its text is typed as always (` <text> `), so its journal holds
// `[Image #1] [Image #2]  <text>` (two spaces). N counts on through a Claude session.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Tmux } from '../tmux/tmux.ts';
import { clearRefilledPrompt, submitPaste } from './prompt-box.ts';
import { claudePromptBox, codexComposer } from './screen.ts';
import { typeCodexPrompt } from './type-prompt.ts';
import { ExecutorError } from './types.ts';

/**
 * The `ExecutorError` detail of a refusal because the CLI left an image path as text (the box was
 * emptied again): the agent then types the message with the file named as a path instead.
 */
export const NOT_ATTACHED = { imagesNotAttached: true } as const;

/** Reading the image file and drawing its placeholder took ~0.5 s here; this is the outer bound. */
const PLACEHOLDER_TRIES = 240;

/** `count` placeholders as the CLIs draw them in the input box and write them to the journal. */
function placeholders(text: string, count: number): RegExpExecArray | null {
  return new RegExp(`^\\[Image #\\d+\\](?: \\[Image #\\d+\\]){${count - 1}}`).exec(text);
}

/** The text after `count` leading placeholders and then exactly `gap`, or null when the prompt does not have that shape. */
function textAfter(stored: string, count: number, gap: string): string | null {
  if (count === 0) return stored;
  const m = placeholders(stored, count);
  if (!m) return null;
  const rest = stored.slice(m[0].length);
  if (rest === '') return '';
  return rest.startsWith(gap) && !rest.slice(gap.length).startsWith(' ') && !rest.startsWith(' [Image #') ? rest.slice(gap.length) : null;
}

/** The typed text of a Claude journal prompt that carried `count` pasted images, or null when it does not carry them. */
export function claudeTextAfterImages(stored: string, count: number): string | null {
  return textAfter(stored, count, ' ');
}

/** The typed text of a Codex user message that carried `count` pasted images, or null when it does not carry them. */
export function codexTextAfterImages(stored: string, count: number): string | null {
  return textAfter(stored, count, '  ');
}

/** Pastes each path alone and waits until `box` shows exactly one more placeholder; false when one did not show. */
async function pasteImages(tmux: Tmux, paneId: string, images: readonly string[], box: () => Promise<string | null>): Promise<boolean> {
  for (const [i, file] of images.entries()) {
    await tmux.paste(paneId, file, { submit: false });
    let shown = false;
    for (let t = 0; t < PLACEHOLDER_TRIES && !shown; t++) {
      const now = await box();
      shown = now !== null && placeholders(now, i + 1)?.[0] === now;
      if (!shown) await sleep(25);
    }
    if (!shown) return false;
  }
  return true;
}

/**
 * Claude: the box must be empty; the images, then ` text` (if any) and Enter. A path Claude did not
 * attach is never submitted as text: the box is cleared and the delivery refused (`not_ready`,
 * `NOT_ATTACHED`).
 */
export async function typeClaudeWithImages(tmux: Tmux, paneId: string, text: string, images: readonly string[]): Promise<void> {
  const box = async () => claudePromptBox(await tmux.capture(paneId));
  const fail = async (step: string, details = {}): Promise<never> => {
    if (await clearRefilledPrompt(tmux, paneId))
      throw new ExecutorError('not_ready', `Claude's input box did not show ${step}; cleared, nothing sent`, details);
    throw new Error(`Claude's input box did not show ${step} and could not be cleared`);
  };
  if ((await box()) !== '') return fail('an empty box before typing');
  if (!(await pasteImages(tmux, paneId, images, box))) return fail('each image as an attachment', NOT_ATTACHED);
  if (text !== '') return submitPaste(tmux, paneId, ` ${text}`);
  await sleep(100);
  await tmux.sendKeys(paneId, ['Enter']);
}

/**
 * Codex: the images, then the text as Codex text is always typed (`typeCodexPrompt`), or Enter alone.
 * A path Codex did not attach is cleared with one Ctrl-C (which empties a non-empty composer) and the
 * delivery refused (`not_ready`); a composer that still holds it is an error (nothing was submitted).
 */
export async function typeCodexWithImages(tmux: Tmux, paneId: string, text: string, images: readonly string[]): Promise<void> {
  const box = async () => codexComposer(await tmux.capture(paneId));
  if (!(await pasteImages(tmux, paneId, images, box))) {
    await tmux.sendKeys(paneId, ['C-c']);
    for (let t = 0; t < 40; t++) {
      const now = (await box()) ?? '';
      if (!images.some((f) => now.includes(f)) && !now.includes('[Image #'))
        throw new ExecutorError('not_ready', "Codex's composer did not show each image as an attachment; cleared, nothing sent", NOT_ATTACHED);
      await sleep(25);
    }
    throw new Error("Codex's composer did not show each image as an attachment and could not be cleared");
  }
  if (text !== '') return typeCodexPrompt(tmux, paneId, text);
  await sleep(100);
  await tmux.sendKeys(paneId, ['Enter']);
}
