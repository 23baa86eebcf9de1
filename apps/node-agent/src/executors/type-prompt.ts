// Typing a user's text so that the CLI's model receives exactly those bytes, as text: never as the
// TUI's shell mode, slash command or popup pick. What a CLI cannot take at all is refused by the hub
// before it is stored (`cliTextRefusal` in core's protocol); everything else is typed here.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Tmux } from '../tmux/tmux.ts';
import { clearRefilledPrompt, submitPaste } from './prompt-box.ts';
import { claudePromptBox } from './screen.ts';
import { ExecutorError } from './types.ts';

/**
 * Codex decides on the trimmed text whether it is a `!` shell command or a `/` command, but skips
 * both when the composer's text starts with a space; a trailing space closes the `@` file popup that
 * the last word would otherwise keep open (Enter would pick a file instead of submitting). Codex
 * trims both spaces before sending, so the model gets the text itself (observed in 0.171.0; texts
 * with outer whitespace of their own are refused by the hub: both CLIs would trim it).
 */
export function typeCodexPrompt(tmux: Tmux, paneId: string, text: string): Promise<void> {
  return submitPaste(tmux, paneId, ` ${text} `);
}

const STEP_TRIES = 120;

async function until(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < STEP_TRIES; i++) {
    if (await check()) return true;
    await sleep(25);
  }
  return false;
}

async function cursorX(tmux: Tmux, paneId: string): Promise<number> {
  return Number((await tmux.run(['display-message', '-p', '-t', paneId, '#{cursor_x}'])).trim());
}

/**
 * Claude switches to shell mode when a change leaves its input starting with `!` while the cursor
 * was at offset 0 and either one character was added or the box was empty (2.1.197). So a `!` text
 * goes in beside a placeholder: type `x`, step left of it, paste the text there (the box was not
 * empty and more than one character came in), then delete the `x` with the cursor past the text.
 * Claude handles keys asynchronously and a key that arrives before the previous one was drawn can
 * act on stale state, so each step waits until the screen (or the cursor) shows it. Every other text
 * is pasted as it is: `/`, `#`, `@`, `?` and spaces are text in a bracketed paste.
 */
export async function typeClaudePrompt(tmux: Tmux, paneId: string, text: string): Promise<void> {
  if (!text.startsWith('!')) return submitPaste(tmux, paneId, text);
  const box = async () => claudePromptBox(await tmux.capture(paneId));
  const fail = async (step: string): Promise<never> => {
    // Nothing was submitted; the half-typed box is emptied so the next delivery starts clean.
    if (await clearRefilledPrompt(tmux, paneId)) throw new ExecutorError('not_ready', `Claude's input box did not show ${step}; cleared, nothing sent`);
    throw new Error(`Claude's input box did not show ${step} and could not be cleared`);
  };
  if ((await box()) !== '') return fail('an empty box before typing');
  await tmux.sendKeys(paneId, ['-l', 'x']);
  if (!(await until(async () => (await box()) === 'x'))) await fail('the placeholder');
  const at = await cursorX(tmux, paneId);
  await tmux.sendKeys(paneId, ['Left']);
  if (!(await until(async () => (await cursorX(tmux, paneId)) === at - 1))) await fail('the cursor before the placeholder');
  const before = await tmux.paste(paneId, text, { submit: false, captureBefore: true });
  if (!(await until(async () => (await tmux.capture(paneId)) !== before))) await fail('the pasted text');
  const pasted = await box();
  if (pasted === null || !pasted.endsWith('x')) await fail('the text before the placeholder');
  await tmux.sendKeys(paneId, ['Delete']);
  if (!(await until(async () => (await box()) !== pasted))) await fail('the placeholder deleted');
  await sleep(100);
  await tmux.sendKeys(paneId, ['Enter']);
}
