import { setTimeout as sleep } from 'node:timers/promises';
import type { Tmux } from '../tmux/tmux.ts';
import { claudeOffersClear, isAtPrompt } from './screen.ts';

/**
 * Claude puts a prompt dropped before the first response byte back into its input box. It has to go,
 * or the next paste would be appended to it. One Esc makes Claude offer "Esc again to clear"; the
 * second Esc is sent only once that offer is on screen, because Esc-Esc on an EMPTY prompt opens the
 * Rewind dialog, which swallows later pastes.
 */
export async function clearRefilledPrompt(tmux: Tmux, paneId: string): Promise<boolean> {
  if (isAtPrompt(await tmux.capture(paneId))) return true;
  await tmux.sendKeys(paneId, ['Escape']);
  for (let i = 0; i < 20; i++) {
    await sleep(50);
    if (!claudeOffersClear(await tmux.capture(paneId))) continue;
    await tmux.sendKeys(paneId, ['Escape']);
    for (let j = 0; j < 40; j++) {
      await sleep(50);
      if (isAtPrompt(await tmux.capture(paneId))) return true;
    }
    return false;
  }
  return false;
}
