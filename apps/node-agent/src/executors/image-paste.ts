// Typing a message with images into Claude Code so that the model gets each image as an image block
// (README.md, "Images"): Claude turns a bracketed paste that is exactly the path of an image file
// into an `[Image #N]` attachment (N counts on through the session), one path per paste, spaces in
// the path allowed. The text follows as one more paste with a leading space, so the journal holds
// `[Image #1] [Image #2] <text>` (Claude puts a space between two placeholders, none before a paste).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Tmux } from '../tmux/tmux.ts';
import { clearRefilledPrompt, submitPaste } from './prompt-box.ts';
import { claudePromptBox } from './screen.ts';
import { ExecutorError } from './types.ts';

/** Reading the image file and drawing its placeholder took ~0.5 s here; this is the outer bound. */
const PLACEHOLDER_TRIES = 240;

/** `count` placeholders as Claude draws them in its input box and writes them to its journal, or null. */
function placeholders(text: string, count: number): RegExpExecArray | null {
  return new RegExp(`^\\[Image #\\d+\\](?: \\[Image #\\d+\\]){${count - 1}}`).exec(text);
}

/**
 * The text a journal prompt carries after the `count` image placeholders Claude put in front of it,
 * or null when the prompt does not start with exactly those (then it is not this delivery's).
 */
export function claudeTextAfterImages(stored: string, count: number): string | null {
  if (count === 0) return stored;
  const m = placeholders(stored, count);
  if (!m) return null;
  const rest = stored.slice(m[0].length);
  if (rest === '') return '';
  return rest.startsWith(' ') && !rest.startsWith(' [Image #') ? rest.slice(1) : null;
}

/**
 * Pastes each image path alone and waits until the box shows its placeholder, then pastes ` text`
 * (if any) and presses Enter. A path Claude did not attach is never submitted as text: the box is
 * cleared and the delivery refused (`not_ready`, nothing sent).
 */
export async function typeClaudeWithImages(tmux: Tmux, paneId: string, text: string, images: readonly string[]): Promise<void> {
  const box = async () => claudePromptBox(await tmux.capture(paneId));
  const fail = async (step: string): Promise<never> => {
    if (await clearRefilledPrompt(tmux, paneId)) throw new ExecutorError('not_ready', `Claude's input box did not show ${step}; cleared, nothing sent`);
    throw new Error(`Claude's input box did not show ${step} and could not be cleared`);
  };
  if ((await box()) !== '') return fail('an empty box before typing');
  for (const [i, file] of images.entries()) {
    await tmux.paste(paneId, file, { submit: false });
    let shown = false;
    for (let t = 0; t < PLACEHOLDER_TRIES && !shown; t++) {
      const now = await box();
      shown = now !== null && placeholders(now, i + 1)?.[0] === now;
      if (!shown) await sleep(25);
    }
    if (!shown) await fail(`image ${i + 1} as an attachment`);
  }
  if (text !== '') return submitPaste(tmux, paneId, ` ${text}`);
  await sleep(100);
  await tmux.sendKeys(paneId, ['Enter']);
}
