import { describe, expect, it } from 'vitest';
import { isAtPrompt } from './screen.ts';

const box = (footer: string) => `──────────\n❯ \n──────────\n  ${footer}\n`;

describe('the prompt of a CLI started in a permission mode', () => {
  it('Claude names its mode in the footer instead of "? for shortcuts" (2.1.197)', () => {
    expect(isAtPrompt(box('? for shortcuts · ← for agents'))).toBe(true);
    expect(isAtPrompt(box('⏵⏵ accept edits on (shift+tab to cycle) · ← for agents'))).toBe(true);
    expect(isAtPrompt(box('⏸ plan mode on (shift+tab to cycle) · ← for agents'))).toBe(true);
    expect(isAtPrompt(box('⏵⏵ bypass permissions on (shift+tab to cycle) · ← for agents'))).toBe(true);
    expect(isAtPrompt('Accessing workspace:\n❯ 1. Yes, I trust this folder\n  2. No, exit\n')).toBe(false);
  });
});
