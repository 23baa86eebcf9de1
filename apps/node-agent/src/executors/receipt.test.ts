import { describe, expect, it } from 'vitest';
import { linesOf } from '../journal/fixture-lines.ts';
import { CodexJournal } from '../journal/codex-journal.ts';
import { claudeDriver } from './claude-driver.ts';
import { codexDriver } from './codex-driver.ts';
import { findReceipt } from './receipt.ts';

const prompts = [
  { nativeRef: 'u1', text: 'same text', offset: 0, end: 10 },
  { nativeRef: 'u2', text: 'other', offset: 10, end: 20 },
  { nativeRef: 'u3', text: 'same text', offset: 20, end: 30 },
];
const exact = (a: string, b: string) => a === b;

describe('findReceipt', () => {
  it('never binds a prompt written before the paste or one already bound', () => {
    expect(findReceipt({ prompts, baseline: 0, bound: new Set(), sent: 'same text', matches: exact })?.nativeRef).toBe('u1');
    expect(findReceipt({ prompts, baseline: 5, bound: new Set(), sent: 'same text', matches: exact })?.nativeRef).toBe('u3');
    expect(findReceipt({ prompts, baseline: 0, bound: new Set([0]), sent: 'same text', matches: exact })?.nativeRef).toBe('u3');
    expect(findReceipt({ prompts, baseline: 25, bound: new Set(), sent: 'same text', matches: exact })).toBeNull();
  });
  it('does not match by similarity', () => {
    expect(findReceipt({ prompts, baseline: 0, bound: new Set(), sent: 'same text ', matches: claudeDriver.promptMatches })).toBeNull();
    expect(findReceipt({ prompts, baseline: 0, bound: new Set(), sent: 'Same text', matches: codexDriver.promptMatches })).toBeNull();
  });
  it('accepts only the rewrites each CLI is known to make', () => {
    expect(claudeDriver.promptMatches('a    b', 'a\tb')).toBe(true);
    expect(claudeDriver.promptMatches(' /x', ' /x')).toBe(true);
    expect(claudeDriver.promptMatches('/x', ' /x')).toBe(false);
    expect(codexDriver.promptMatches('/x', ' /x')).toBe(true);
    expect(codexDriver.promptMatches('a\tb', 'a    b')).toBe(false);
  });
  it('binds a real Codex prompt to its turn id', () => {
    const j = new CodexJournal();
    j.ingest(linesOf(new URL('../journal/fixtures/codex-rollout.jsonl', import.meta.url).pathname));
    const hit = findReceipt({
      prompts: j.prompts,
      baseline: 0,
      bound: new Set(),
      sent: ' /slash and "quotes" $HOME `tick`\nsecond line ü',
      matches: codexDriver.promptMatches,
    });
    expect(hit?.nativeRef).toBe('01a2368c-f62e-73c0-8993-968a128affa4');
  });
});
