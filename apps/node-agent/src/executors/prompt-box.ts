import { setTimeout as sleep } from 'node:timers/promises';
import type { Tmux } from '../tmux/tmux.ts';
import { claudePromptBox } from './screen.ts';

/**
 * Claude puts a prompt dropped before the first response byte back into its input box. It has to go,
 * or the next paste would be appended to it. One Ctrl-C clears a non-empty box (it also arms "Press
 * Ctrl-C again to exit" for ~2 s, and Bria never sends a second one). Esc is not used: its "Esc again
 * to clear" offer is hidden behind other footer hints, and Esc-Esc on an EMPTY prompt opens the
 * Rewind dialog, which swallows later pastes.
 */
export async function clearRefilledPrompt(tmux: Tmux, paneId: string): Promise<boolean> {
  const box = claudePromptBox(await tmux.capture(paneId));
  if (box === '') return true;
  if (box === null) return false;
  await tmux.sendKeys(paneId, ['C-c']);
  for (let i = 0; i < 40; i++) {
    await sleep(25);
    if (claudePromptBox(await tmux.capture(paneId)) === '') return true;
  }
  return false;
}

/**
 * Pastes, waits until the TUI has drawn the paste (a long paste takes Claude ~100 ms to fold into
 * "[Pasted text #1 +N lines]"; an Enter that arrives before that was observed to get lost), then
 * presses Enter. The screen only times the key press; acceptance is proven by the journal.
 * The "before" screen is captured in the same tmux unit as the paste (one control-mode write, or
 * one tmux process without a control client), so nothing can be drawn between the two.
 */
export async function submitPaste(tmux: Tmux, paneId: string, text: string): Promise<void> {
  const before = await tmux.paste(paneId, text, { submit: false, captureBefore: true });
  for (let i = 0; i < 40; i++) {
    await sleep(25);
    if ((await tmux.capture(paneId)) !== before) break;
  }
  // Codex turns an Enter that follows input too closely into a newline.
  await sleep(100);
  await tmux.sendKeys(paneId, ['Enter']);
}
