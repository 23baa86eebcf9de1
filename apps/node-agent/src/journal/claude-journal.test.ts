import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ClaudeJournal } from './claude-journal.ts';
import { linesOf } from './fixture-lines.ts';

// Captured from Claude Code 2.1.197 against the mock: hello, TWOBLOCKS, a " /slash" multi-line text,
// SLOW + Esc, HANG + Esc (nothing journaled but the prompt), "after interrupt", /exit, --resume,
// "after resume", FAIL400. Attachment bodies were trimmed; everything else is as written.
const FIXTURE = new URL('./fixtures/claude-session.jsonl', import.meta.url).pathname;
const lines = linesOf(FIXTURE);

function load(order: 'file' | 'reversed' = 'file'): ClaudeJournal {
  const j = new ClaudeJournal();
  const ls = order === 'file' ? lines : [...lines].reverse();
  for (const l of ls) j.ingest([l]);
  return j;
}

function promptUuid(j: ClaudeJournal, text: string): string {
  const p = j.prompts.filter((x) => x.text === text);
  expect(p).toHaveLength(1);
  return p[0]!.nativeRef;
}

describe('ClaudeJournal on a real journal', () => {
  it('finds every typed prompt byte-exact, including the out-of-order first turn', () => {
    const j = load();
    expect(j.prompts.map((p) => p.text)).toEqual([
      'hello one', 'TWOBLOCKS please', ' /slash and "quotes" $HOME `tick`\nsecond line ü', 'SLOW please',
      'HANG please', 'after interrupt', 'after resume', 'FAIL400 please',
    ]);
    expect([...j.sessionIds]).toEqual(['85c38f52-9a5b-4ae8-a3ae-a71190a8a108']);
    // The first turn's assistant and turn_duration precede its user record in the file.
    const first = j.prompts[0]!;
    const outcome = j.outcome(first.nativeRef);
    expect(outcome.state).toBe('completed');
    if (outcome.state === 'completed') {
      expect(outcome.finalText).toBe('MOCK-REPLY-2: you said "hello one"');
      expect(outcome.evidence.offset).toBeLessThan(first.offset);
      expect(outcome.usage?.outputTokens).toBeGreaterThan(0);
    }
  });

  it('concatenates the text blocks of one message for the final text', () => {
    const o = load().outcome(promptUuid(load(), 'TWOBLOCKS please'));
    expect(o).toMatchObject({ state: 'completed', finalText: 'MOCK-REPLY-4: you said "TWOBLOCKS please" MOCK-SECOND-BLOCK-4' });
    if (o.state === 'completed') expect(o.evidence.recordIds).toHaveLength(3);
  });

  it('reports interrupts, API errors and a prompt dropped before the first byte', () => {
    const j = load();
    expect(j.outcome(promptUuid(j, 'SLOW please'))).toMatchObject({ state: 'interrupted' });
    expect(j.outcome(promptUuid(j, 'FAIL400 please'))).toMatchObject({ state: 'api_error', errorText: 'API Error: 400 mock fail400' });
    const hang = promptUuid(j, 'HANG please');
    expect(j.outcome(hang)).toEqual({ state: 'pending' });
    expect(j.supersededBy(hang)?.text).toBe('after interrupt');
    expect(j.outcome(promptUuid(j, 'after interrupt'))).toMatchObject({ state: 'completed' });
    expect(j.outcome(promptUuid(j, 'after resume'))).toMatchObject({ state: 'completed', finalText: 'MOCK-REPLY-10: you said "after resume"' });
  });

  it('reaches the same conclusions whatever order the records arrive in', () => {
    const a = load('file');
    const b = load('reversed');
    for (const p of a.prompts) expect(b.outcome(p.nativeRef)).toEqual(a.outcome(p.nativeRef));
  });

  it('stays pending while the chain is incomplete, and calls two terminals for one prompt unknown', () => {
    const j = new ClaudeJournal();
    const upTo = lines.findIndex((l) => l.text.includes('"TWOBLOCKS please"'));
    j.ingest(lines.slice(0, upTo + 2)); // prompt + first block, no turn_duration yet
    expect(j.outcome(promptUuid(j, 'TWOBLOCKS please'))).toEqual({ state: 'pending' });

    const dup = JSON.parse(lines.find((l) => l.text.includes('"turn_duration"') && l.offset > lines[upTo]!.offset)!.text);
    const marker = { type: 'user', uuid: 'bogus-marker', parentUuid: dup.parentUuid, message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] } };
    const all = new ClaudeJournal();
    all.ingest(lines);
    all.ingest([{ offset: 999999, end: 1000000, text: JSON.stringify(marker) }]);
    expect(all.outcome(promptUuid(all, 'TWOBLOCKS please'))).toMatchObject({ state: 'unknown' });
  });

  it('records malformed lines instead of skipping them silently', () => {
    const j = new ClaudeJournal();
    j.ingest([{ offset: 0, end: 10, text: '{"type":"us' }]);
    expect(j.malformed).toHaveLength(1);
    expect(readFileSync(FIXTURE, 'utf8').endsWith('\n')).toBe(true);
  });
});
