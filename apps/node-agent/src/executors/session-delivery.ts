import { setTimeout as sleep } from 'node:timers/promises';
import type { Tmux } from '../tmux/tmux.ts';
import { claudePromptBox, detectBlockingPrompt } from './screen.ts';
import { type ExecutorDriver, ExecutorError, type HostEvent } from './types.ts';

/** How long a follow-up's typing gate waits for Claude to take the Enter (its box empty again). */
const ENTER_TAKEN_MS = 2_000;

/**
 * Held while a follow-up is typed into a running turn (the agent's hook channel): `begin` says why
 * typing may not begin now (null = it began); `end` lets the tool calls that waited go on.
 */
export interface DeliveryGate {
  begin(): string | null;
  end(): void;
}

/**
 * Types one message into the CLI, or refuses (`ExecutorError` `not_ready`) with nothing typed.
 * A permission dialog on screen takes a paste + Enter as its highlighted "Yes" and loses the text
 * (docs/cli-facts.md, "Typing into a dialog"). Bria's hook reports it, but the dialog is drawn before
 * the hook's request can reach the agent: the screen is checked right before every paste, and nothing
 * is typed then. Not only for follow-ups: a host attached after an agent restart does not know that a
 * turn runs, and Claude draws its own dialog when its hook cannot reach an agent (a main message
 * pasted into that dialog ran a `Write` nobody allowed; docs/reliability.md). The screen check alone
 * leaves a window (a dialog drawn between the check and the Enter): for a follow-up the typing gate
 * also holds every tool call of the session until the CLI took the Enter, and refuses to begin while
 * a tool call is open (hooks/typing-gate.ts).
 * `arm` is called right before the paste (the receipt is looked for from then on), `disarm` if the
 * paste failed; `refused` reports the dialog's text of a refusal (the host tells each dialog once).
 */
export async function typeMessage(o: {
  tmux: Tmux;
  driver: ExecutorDriver;
  paneId: string;
  messageId: string;
  text: string;
  /** Image files pasted before the text (only for a driver with `images`). */
  images?: readonly string[];
  followUp: boolean;
  gate?: DeliveryGate | undefined;
  arm: () => void;
  disarm: () => void;
  refused: (dialogText: string | null) => void;
}): Promise<void> {
  const held = o.followUp && o.gate ? o.gate.begin() : null;
  if (held !== null) throw new ExecutorError('not_ready', held);
  const gate = o.followUp ? o.gate : undefined;
  try {
    const screen = await o.tmux.capture(o.paneId).catch(() => '');
    if (permissionDialogOnScreen(screen)) {
      o.refused(detectBlockingPrompt(screen));
      throw new ExecutorError('not_ready', 'a permission dialog is on the screen');
    }
    o.arm();
    try {
      const images = o.images ?? [];
      if (images.length > 0 && o.driver.images) await o.driver.images.submit(o.tmux, o.paneId, o.text, images);
      else await o.driver.submitPrompt(o.tmux, o.paneId, o.text);
    } catch (err) {
      o.disarm();
      throw err;
    }
    if (gate) await enterTaken(o.tmux, o.driver, o.paneId);
  } finally {
    gate?.end();
  }
}

/**
 * Waits (bounded) until the CLI has taken the Enter: Claude's input box is empty again (a follow-up
 * is queued below it). Codex asks only once Bria's hook ended, so no wait is needed there.
 */
async function enterTaken(tmux: Tmux, driver: ExecutorDriver, paneId: string): Promise<void> {
  if (driver.executor !== 'claude') return;
  const deadline = Date.now() + ENTER_TAKEN_MS;
  while (Date.now() < deadline) {
    const box = claudePromptBox(await tmux.capture(paneId).catch(() => ''));
    if (box === '' || box === null) return;
    await sleep(25);
  }
}

/** A delivery told of the dialog it met: once per dialog (the chat learns what the session waits for). */
export function dialogNotice(o: { text: string | null; toldOf: string | null; paneId: string; messageId: string }): HostEvent | null {
  return o.text && o.text !== o.toldOf ? { type: 'blocked_on_prompt', promptText: o.text, evidence: { paneId: o.paneId, refusedDelivery: o.messageId } } : null;
}

/**
 * One of the CLIs' permission or question dialogs at the bottom of the screen: the question and its
 * first choice highlighted (Claude `❯ 1. Yes`, Codex `› 1. Yes, proceed`; Claude's question picker).
 * Both must be in the last lines, so a model's answer quoting such words does not count.
 */
export function permissionDialogOnScreen(screen: string): boolean {
  const tail = screen.split('\n').slice(-25).join('\n');
  // Codex's choice dialogs end with "enter select · esc back"; after a usage limit 0.171 opens one
  // ("Approaching rate limits · Switch to <model>?"), whose first choice a pasted Enter would pick
  // (docs/cli-facts.md, "Usage limits").
  const asks =
    /Do you want to (proceed|make this edit|create|allow)|Would you like to run the following command|Enter to select · ↑\/↓ to navigate|enter select · esc back/i.test(
      tail,
    );
  return asks && /^\s*[❯›]\s*1\.\s/m.test(tail);
}
