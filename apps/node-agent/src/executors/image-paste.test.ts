import { describe, expect, it } from 'vitest';
import { claudeDriver } from './claude-driver.ts';
import { codexDriver } from './codex-driver.ts';
import { claudeTextAfterImages, codexTextAfterImages } from './image-paste.ts';

describe('claudeTextAfterImages: the typed text of a journal prompt that carried pasted images', () => {
  it.each([
    // stored (as Claude 2.1.197 journals it), images, text or null
    ['[Image #1] describe it', 1, 'describe it'],
    ['[Image #7] describe it', 1, 'describe it'],
    ['[Image #1] [Image #2] and text', 2, 'and text'],
    ['[Image #3] [Image #4]', 2, ''],
    ['[Image #2]', 1, ''],
    ['[Image #1] [Image #2] line one\nline two', 2, 'line one\nline two'],
    ['plain text', 0, 'plain text'],
    // Not this delivery's: another number of images, no placeholder, no separating space.
    ['[Image #1] [Image #2] x', 1, null],
    ['[Image #1] x', 2, null],
    ['describe it', 1, null],
    ['[Image #1]describe it', 1, null],
    ['x [Image #1] describe it', 1, null],
    ['[Image #a] x', 1, null],
  ] as const)('%j with %i image(s) → %j', (stored, count, text) => {
    expect(claudeTextAfterImages(stored, count)).toBe(text);
  });

  it('each driver reads its own form', () => {
    expect(claudeDriver.images?.textAfter).toBe(claudeTextAfterImages);
    expect(codexDriver.images?.textAfter).toBe(codexTextAfterImages);
  });
});

describe('codexTextAfterImages: the typed text of a Codex user message that carried pasted images', () => {
  it.each([
    // stored (as codex-cli 0.171.0 writes the UserMessage text), images, text or null
    ['[Image #1]  describe it', 1, 'describe it'],
    ['[Image #1] [Image #2]  !describe it', 2, '!describe it'],
    ['[Image #1]', 1, ''],
    ['plain', 0, 'plain'],
    ['[Image #1] describe it', 1, null],
    ['[Image #1]   describe it', 1, null],
    ['[Image #1] [Image #2]  x', 1, null],
    ['describe it', 1, null],
  ] as const)('%j with %i image(s) → %j', (stored, count, text) => {
    expect(codexTextAfterImages(stored, count)).toBe(text);
  });
});
