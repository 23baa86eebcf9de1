import { describe, expect, it } from 'vitest';
import { claudePromptBox, detectBlockingPrompt, folderTrustDialog, isAtPrompt, sessionIdFromStatus } from './screen.ts';

// Screens as captured from Claude Code 2.1.197 and codex-cli 0.171.0 (trimmed).
const CLAUDE_IDLE = `❯ past prompt\n● answer\n❯\u00a0\n────────\n  ? for shortcuts · ← for agents                      ● high · /effort`;
const CLAUDE_REFILLED = `❯\u00a0HANG please\n────────\n                                        Esc again to clear`;
const CODEX_IDLE = `› Ask Codex to do anything\n  mock-model default · /tmp/w\n  ← for agents · ? for shortcuts`;
const CODEX_STATUS = `  Session:             01a2368c-d855-7312-9f0e-4ffe2a850ce0\n  Token usage:         0 total`;
const CLAUDE_TRUST = ` Accessing workspace:\n /tmp/x\n Is this a project you created or one you trust?\n ❯ 1. Yes, I trust this folder\n   2. No, exit\n Enter to confirm · Esc to cancel`;
const CODEX_TRUST = `> You are in /tmp/repo\n  Do you trust the contents of this directory?\n› 1. Yes, continue\n  2. No, quit`;

describe('screen reading', () => {
  it('recognises the idle prompt of both CLIs', () => {
    expect(isAtPrompt(CLAUDE_IDLE)).toBe(true);
    expect(isAtPrompt(CODEX_IDLE)).toBe(true);
    expect(isAtPrompt(CLAUDE_REFILLED)).toBe(false);
  });
  it('reports blocking dialogs with their text and ignores normal screens', () => {
    expect(detectBlockingPrompt(CLAUDE_TRUST)).toContain('Yes, I trust this folder');
    expect(detectBlockingPrompt(CODEX_TRUST)).toContain('Do you trust the contents');
    expect(detectBlockingPrompt(CLAUDE_IDLE)).toBeNull();
    expect(detectBlockingPrompt(CODEX_IDLE)).toBeNull();
  });
  it("reads the Codex session id from /status and the text in Claude's input box", () => {
    expect(sessionIdFromStatus(`${CODEX_IDLE}\n${CODEX_STATUS}`)).toBe('01a2368c-d855-7312-9f0e-4ffe2a850ce0');
    expect(sessionIdFromStatus(CODEX_IDLE)).toBeNull();
    expect(claudePromptBox(CLAUDE_REFILLED)).toBe('HANG please');
    expect(claudePromptBox(CLAUDE_IDLE)).toBe('');
    expect(claudePromptBox(`❯ old\n❯\u00a0HANG please\n  second line\n────────\n  paste again to expand`)).toBe('HANG please\nsecond line');
    expect(claudePromptBox(CODEX_IDLE)).toBeNull();
  });
});

describe("folderTrustDialog (the only dialog Bria answers, on the user's word)", () => {
  const claude =
    ' Accessing workspace:\n\n /tmp/u\n\n Quick safety check: Is this a project you created or one you trust?\n\n ❯ 1. Yes, I trust this folder\n   2. No, exit\n\n Enter to confirm · Esc to cancel';
  const codex = '> Folder access /tmp/g\n\n  Trust this folder?\n\n› 1. Trust and continue\n  2. Back to Agent Command Center\n\n  enter continue · esc back';
  it("recognises both CLIs' folder-trust dialogs with the trust choice highlighted", () => {
    expect(folderTrustDialog(claude)).toBe(true);
    expect(folderTrustDialog(codex)).toBe(true);
  });
  it('refuses when another choice is highlighted or another dialog is shown', () => {
    expect(folderTrustDialog(claude.replace('❯ 1.', '  1.').replace('  2. No', '❯ 2. No'))).toBe(false);
    expect(folderTrustDialog(codex.replace('› 1.', '  1.'))).toBe(false);
    expect(folderTrustDialog(' Bash command\n touch x\n Do you want to proceed?\n ❯ 1. Yes\n   2. No')).toBe(false);
    expect(folderTrustDialog('')).toBe(false);
  });
});
