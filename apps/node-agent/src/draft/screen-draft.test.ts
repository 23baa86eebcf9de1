import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDraft } from './screen-draft.ts';

// Screens captured (`capture-pane -p`) from the pinned CLIs against the mock model while it streamed
// a SLOWLINES answer (30 lines, 100 ms apart), a short answer, and a tool call; see fixtures/README.md.
const screen = (cli: 'claude' | 'codex', name: string) => readFileSync(join(import.meta.dirname, 'fixtures', cli, `${name}.txt`), 'utf8');
const SLOW = 'SLOWLINES answer please\nwith a second line';
const lines = (n: number) => Array.from({ length: n - 1 }, (_, i) => `line ${i + 2} of 30 of the slow answer`);
const slowDraft = (reply: number, n: number) =>
  [`MOCK-REPLY-${reply}: you said "SLOWLINES answer please`, 'with a second line" [1/30]', ...lines(n)].join('\n');

describe.each([
  ['claude', 4],
  ['codex', 3],
] as const)('the answer %s draws for the running turn', (cli, reply) => {
  it('is nothing before the first answer line is drawn', () => {
    expect(readDraft(cli, { screen: screen(cli, 't2-00'), prompt: SLOW })).toBeNull();
  });

  it('grows with the streamed answer, line by line, with the indent and bullet removed', () => {
    const steps = cli === 'claude' ? ['t2-02', 't2-06', 't2-final'] : ['t2-01', 't2-04', 't2-final'];
    const seen = steps.map((s) => readDraft(cli, { screen: screen(cli, s), prompt: SLOW }));
    const counts = cli === 'claude' ? [3, 9, 30] : [2, 6, 30];
    expect(seen).toEqual(counts.map((n) => slowDraft(reply, n)));
  });

  it('reads nothing of an earlier turn when the running turn prompt is not on the screen', () => {
    expect(readDraft(cli, { screen: screen(cli, 't1-final'), prompt: SLOW })).toBeNull();
    expect(readDraft(cli, { screen: screen(cli, '00-idle'), prompt: 'first short question' })).toBeNull();
  });

  it('takes the last prompt that shows the turn text (a repeated prompt is the newer turn)', () => {
    expect(readDraft(cli, { screen: screen(cli, 't1-final'), prompt: 'first short question' })).toMatch(/^MOCK-REPLY-\d: you said "first short question"$/);
  });

  it('yields nothing for a screen it does not know', () => {
    for (const s of ['', 'plain shell output\n$ ', screen(cli, cli === 'claude' ? 't2-06' : 't2-04').replaceAll(cli === 'claude' ? '─' : '›', '=')]) {
      expect(readDraft(cli, { screen: s, prompt: SLOW })).toBeNull();
    }
  });
});

describe('tool calls', () => {
  it('Claude: the text before a tool call is the draft, the call and its dialog are not', () => {
    expect(readDraft('claude', { screen: screen('claude', 't3-05'), prompt: 'TOOLBASH-echo_hi then answer' })).toBe('MOCK-TOOL-5: creating ran-echo_hi');
  });

  it('Codex: the answer after the prompt, without the "Worked for" line', () => {
    expect(readDraft('codex', { screen: screen('codex', 't3-final'), prompt: 'TOOLBASH-echo_hi then answer' })).toBe(
      'MOCK-REPLY-4: you said "TOOLBASH-echo_hi then answer"',
    );
  });
});

describe('a turn whose prompt carried pasted images', () => {
  // As Claude 2.1.197 draws it: the placeholders in front of the typed text, one `⎿ [Image #N]` each.
  const rule = '─'.repeat(40);
  const shot = (prompt: string) =>
    [
      `❯ ${prompt}`,
      '  ⎿  [Image #3]',
      '  ⎿  [Image #4]',
      '● MOCK-REPLY-5: you said "two pictures',
      '  second line"',
      '',
      '✻ Baked for 0s',
      '',
      rule,
      '❯\u00a0',
      rule,
      '  ? for shortcuts',
    ].join('\n');
  it('Claude: the turn is found by the text after the placeholders', () => {
    const answer = 'MOCK-REPLY-5: you said "two pictures\nsecond line"';
    expect(readDraft('claude', { screen: shot('[Image #3] [Image #4] two pictures'), prompt: 'two pictures' })).toBe(answer);
    expect(readDraft('claude', { screen: shot('[Image #3] [Image #4]'), prompt: '' })).toBe(answer);
    // Another turn's text after the placeholders is not this turn.
    expect(readDraft('claude', { screen: shot('[Image #3] [Image #4] other words'), prompt: 'two pictures' })).toBeNull();
  });

  it('Codex: the turn is found by the text after the placeholders (two spaces after the last)', () => {
    const codex = (prompt: string) =>
      [
        `› ${prompt}`,
        '',
        '• MOCK-REPLY-2: you said "look"',
        '',
        '  Worked for 1s • 05:30',
        '',
        '› Ask Codex to do anything',
        '',
        '  mock-model default · /w',
      ].join('\n');
    expect(readDraft('codex', { screen: codex('[Image #1]  look'), prompt: 'look' })).toBe('MOCK-REPLY-2: you said "look"');
    expect(readDraft('codex', { screen: codex('[Image #1]  other'), prompt: 'look' })).toBeNull();
  });
});
