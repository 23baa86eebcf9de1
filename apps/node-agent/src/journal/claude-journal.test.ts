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
      'hello one',
      'TWOBLOCKS please',
      ' /slash and "quotes" $HOME `tick`\nsecond line ü',
      'SLOW please',
      'HANG please',
      'after interrupt',
      'after resume',
      'FAIL400 please',
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
      // The model the mock answered as (it echoes the request's: Claude Code 2.1.197's default).
      expect(outcome.usage?.model).toBe('claude-opus-4-8');
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
    const marker = {
      type: 'user',
      uuid: 'bogus-marker',
      parentUuid: dup.parentUuid,
      message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
    };
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

describe('ClaudeJournal: a follow-up queued before an Esc', () => {
  // As Claude Code 2.1.197 wrote it (ids shortened) when it dequeued the queued follow-up before
  // writing the main's interrupt marker: the follow-up's prompt hangs off the main's synthetic
  // partial and the marker hangs off the follow-up's prompt (both carry the follow-up's promptId).
  const user = (uuid: string, parentUuid: string | null, content: unknown) => ({
    type: 'user',
    uuid,
    parentUuid,
    promptId: 'p',
    message: { role: 'user', content },
  });
  const marker = (uuid: string, parentUuid: string) => user(uuid, parentUuid, [{ type: 'text', text: '[Request interrupted by user]' }]);
  const assistant = (uuid: string, parentUuid: string, id: string, text: string, synthetic = false) => ({
    type: 'assistant',
    uuid,
    parentUuid,
    message: { id, role: 'assistant', model: synthetic ? '<synthetic>' : 'claude-opus-4-8', content: [{ type: 'text', text }] },
  });
  const displaced = [
    user('main', null, 'STALL main'),
    { type: 'queue-operation', operation: 'enqueue', content: 'follow' },
    assistant('partial', 'main', 'm1', 'MOCK-REPLY-1: you said "STALL main"', true),
    user('follow', 'partial', 'follow'),
    marker('mark-1', 'follow'),
  ];
  const journal = (records: object[]) => {
    const j = new ClaudeJournal();
    j.ingest(records.map((r, i) => ({ offset: i * 1000, end: i * 1000 + 999, text: JSON.stringify(r) })));
    return j;
  };

  it('gives a displaced marker to the interrupted prompt and the later answer to the follow-up', () => {
    const j = journal([
      ...displaced,
      assistant('answer', 'mark-1', 'm2', 'MOCK-REPLY-2: follow'),
      { type: 'system', subtype: 'turn_duration', uuid: 'td', parentUuid: 'answer' },
    ]);
    expect(j.outcome('main')).toMatchObject({ state: 'interrupted', evidence: { recordIds: ['mark-1'] } });
    expect(j.outcome('follow')).toMatchObject({ state: 'completed', finalText: 'MOCK-REPLY-2: follow' });
  });

  it('ends the follow-up with its own later interrupt', () => {
    const j = journal([...displaced, assistant('partial-2', 'mark-1', 'm3', 'MOCK-REPLY-3', true), marker('mark-2', 'partial-2')]);
    expect(j.outcome('main')).toMatchObject({ state: 'interrupted', evidence: { recordIds: ['mark-1'] } });
    expect(j.outcome('follow')).toMatchObject({ state: 'interrupted', evidence: { recordIds: ['mark-2'] } });
  });

  it('keeps the chain when the marker is written in place (before the queued prompt)', () => {
    const j = journal([
      user('main', null, 'x'),
      assistant('partial', 'main', 'm1', 'x', true),
      marker('mark-1', 'partial'),
      user('follow', 'mark-1', 'follow'),
    ]);
    expect(j.outcome('main')).toMatchObject({ state: 'interrupted' });
    expect(j.outcome('follow')).toEqual({ state: 'pending' });
  });
});

describe('ClaudeJournal: a prompt with pasted images', () => {
  // As Claude Code 2.1.197 wrote it (ids shortened, base64 cut): the typed text and the image blocks
  // in one record, then a meta record naming each image's source path, which the answer hangs off.
  const records = [
    {
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      imagePasteIds: [1, 2],
      message: {
        role: 'user',
        content: [
          { type: 'text', text: '[Image #1] [Image #2] and text' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
    },
    { type: 'user', uuid: 'meta', parentUuid: 'u1', isMeta: true, message: { role: 'user', content: [{ type: 'text', text: '[Image: source: /a/b c.png]' }] } },
    {
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'meta',
      message: { id: 'm1', role: 'assistant', model: 'claude-opus-4-8', content: [{ type: 'text', text: 'MOCK-REPLY-3' }] },
    },
    { type: 'system', subtype: 'turn_duration', uuid: 'd1', parentUuid: 'a1', durationMs: 10 },
  ];
  it('is one prompt whose text is the typed text with its placeholders, and its turn completes', () => {
    const j = new ClaudeJournal();
    j.ingest(records.map((r, i) => ({ offset: i * 1000, end: i * 1000 + 999, text: JSON.stringify(r) })));
    expect(j.prompts.map((p) => [p.nativeRef, p.text])).toEqual([['u1', '[Image #1] [Image #2] and text']]);
    expect(j.outcome('u1')).toMatchObject({ state: 'completed', finalText: 'MOCK-REPLY-3' });
  });
});
