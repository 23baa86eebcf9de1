import { describe, expect, it } from 'vitest';
import { compactEvidence, compactTyped } from './session-compact.ts';
import { permissionDialogOnScreen } from './session-delivery.ts';

describe("the CLI's /compact as its journal records it (pinned CLIs, seen by hand)", () => {
  const claudeDone = [
    '{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>\\n            <command-message>compact</command-message>\\n            <command-args></command-args>"}}',
    '{"type":"user","message":{"role":"user","content":"<local-command-stdout>\\u001b[2mCompacted (ctrl+o to see full summary)\\u001b[22m</local-command-stdout>"}}',
  ].join('\n');
  it('Claude: the command record and its own output line, without ANSI', () => {
    expect(compactEvidence('claude', claudeDone)).toBe('Compacted (ctrl+o to see full summary)');
    expect(compactEvidence('claude', claudeDone.split('\n')[0]!)).toBeNull();
    expect(compactEvidence('claude', '{"type":"user","message":{"content":"please /compact this"}}')).toBeNull();
    expect(compactEvidence('claude', claudeDone.replace('Compacted (ctrl+o to see full summary)', 'Not enough messages to compact'))).toBe(
      'Not enough messages to compact',
    );
  });
  it('Codex: an item_completed ContextCompaction', () => {
    expect(compactEvidence('codex', '{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"ContextCompaction","id":"x"}}}')).toBe('Compacted');
    expect(compactEvidence('codex', '{"type":"event_msg","payload":{"type":"task_complete"}}')).toBeNull();
  });
  it('Enter goes only when the input line holds exactly the command, not a popup entry', () => {
    expect(compactTyped('codex', '› /compact  summarize conversation to prevent hitting the context limit\n› /compact\n  mock-model default')).toBe(true);
    expect(compactTyped('codex', '› /compact  summarize conversation to prevent hitting the context limit\n› /comp')).toBe(false);
    expect(compactTyped('claude', '────────\n❯\u00a0/compact\n────────\n  ? for shortcuts')).toBe(true);
    expect(compactTyped('claude', '────────\n❯\u00a0/compa\n────────')).toBe(false);
  });
});

describe('permissionDialogOnScreen: nothing is pasted while a permission dialog is drawn', () => {
  const claude =
    ' Bash command\n\n   touch ran-a1\n   Touch ran-a1\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to w/ from this project\n   3. No\n\n Esc to cancel · Tab to amend · ctrl+e to explain';
  const codex =
    "  Would you like to run the following command?\n\n  Reason: spike needs it\n\n  $ touch /w/ran-x1\n\n› 1. Yes, proceed (y)\n  2. Yes, and don't ask again for commands that start with `touch /w/ran-x1` (p)\n  3. No, and tell Codex what to do differently (esc)\n\n  Press enter to confirm or esc to cancel";
  it("sees both CLIs' dialogs (docs/cli-facts.md), not a model answer that quotes the words", () => {
    expect(permissionDialogOnScreen(claude)).toBe(true);
    expect(permissionDialogOnScreen(codex)).toBe(true);
    expect(permissionDialogOnScreen('● The script asks: "Do you want to proceed?" and exits.\n\n❯\u00a0\n  ? for shortcuts')).toBe(false);
    expect(permissionDialogOnScreen('')).toBe(false);
  });

  // Codex 0.171.0 right after the mock's LIMIT429 (a usage limit): a paste + Enter here switched the
  // session's model to the first choice and lost the text, so nothing may be typed while it is up.
  it("sees Codex's model-switch dialog after a usage limit", () => {
    const screen = [
      '› now LIMIT429-15 please',
      '■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again',
      'at 3:10 AM.',
      '  Approaching rate limits',
      '  Switch to gpt-6-luna for lower credit usage?',
      '› 1. Switch to gpt-6-luna                   Fast and affordable model for easier tasks.',
      '  2. Keep current model',
      '  3. Keep current model (never show again)  Hide future rate limit reminders about switching models',
      '  enter select · esc back',
    ].join('\n');
    expect(permissionDialogOnScreen(screen)).toBe(true);
    // Once dismissed (Esc), the composer is back and the message may go.
    expect(permissionDialogOnScreen('■ You’ve hit your usage limit.\n› Ask Codex to do anything\n  ← for agents · ? for shortcuts')).toBe(false);
  });
});
