import { describe, expect, it } from 'vitest';
import { CodexJournal } from './codex-journal.ts';
import { linesOf } from './fixture-lines.ts';

// Captured from codex-cli 0.171.0 (--no-daemon) against the mock: hello, FAIL400, a " /slash"
// multi-line text, SLOW + Esc, HANG + Esc, "after interrupt". Instruction texts were trimmed.
const lines = linesOf(new URL('./fixtures/codex-rollout.jsonl', import.meta.url).pathname);

function load(): CodexJournal {
  const j = new CodexJournal();
  j.ingest(lines);
  return j;
}

function turnOf(j: CodexJournal, text: string): string {
  const p = j.prompts.filter((x) => x.text === text);
  expect(p).toHaveLength(1);
  return p[0]!.nativeRef;
}

describe('CodexJournal on a real rollout', () => {
  it('reads the session meta and every user message with its turn id', () => {
    const j = load();
    expect(j.meta).toMatchObject({ id: '01a2368c-d855-7312-9f0e-4ffe2a850ce0', cwd: '/tmp/cap/codex/work', offset: 0 });
    // Codex drops the leading space Bria adds in front of "/".
    expect(j.prompts.map((p) => p.text)).toEqual([
      'hello one',
      'FAIL400 please',
      '/slash and "quotes" $HOME `tick`\nsecond line ü',
      'SLOW please',
      'HANG please',
      'after interrupt',
    ]);
    expect(new Set(j.prompts.map((p) => p.nativeRef)).size).toBe(6);
  });

  it('derives completion, error and interrupt per turn id', () => {
    const j = load();
    expect(j.outcome(turnOf(j, 'hello one'))).toMatchObject({ state: 'completed', finalText: 'MOCK-REPLY-1: you said "hello one"' });
    const fail = j.outcome(turnOf(j, 'FAIL400 please'));
    expect(fail.state).toBe('api_error');
    if (fail.state === 'api_error') expect(fail.errorText).toContain('mock fail400');
    expect(j.outcome(turnOf(j, 'SLOW please'))).toMatchObject({ state: 'interrupted', reason: 'interrupted' });
    expect(j.outcome(turnOf(j, 'HANG please'))).toMatchObject({ state: 'interrupted', reason: 'interrupted' });
    const done = j.outcome(turnOf(j, 'after interrupt'));
    expect(done).toMatchObject({ state: 'completed', finalText: 'MOCK-REPLY-7: you said "after interrupt"' });
    if (done.state === 'completed') {
      expect(done.usage?.inputTokens).toBeGreaterThan(0);
      expect(done.usage?.model).toBe('mock-model');
      expect(lines.find((l) => l.offset === done.evidence.offset)?.text).toContain('"task_complete"');
    }
  });

  it('is pending before the terminal line and unknown when terminals contradict', () => {
    const j = new CodexJournal();
    const idx = lines.findIndex((l) => l.text.includes('"task_complete"'));
    j.ingest(lines.slice(0, idx));
    const turn = turnOf(j, 'hello one');
    expect(j.outcome(turn)).toEqual({ state: 'pending' });
    j.ingest([lines[idx]!]);
    expect(j.outcome(turn).state).toBe('completed');
    j.ingest([
      { offset: 1e6, end: 1e6 + 1, text: JSON.stringify({ type: 'event_msg', payload: { type: 'turn_aborted', turn_id: turn, reason: 'interrupted' } }) },
    ]);
    expect(j.outcome(turn).state).toBe('unknown');
  });

  it('never concludes from a task_complete that has neither a final message nor an error', () => {
    const j = new CodexJournal();
    j.ingest([{ offset: 0, end: 1, text: JSON.stringify({ type: 'event_msg', payload: { type: 'task_complete', turn_id: 't1', last_agent_message: null } }) }]);
    expect(j.outcome('t1').state).toBe('unknown');
  });
});

describe('CodexJournal tokens per turn', () => {
  it('sums every model request of a turn (one token_count each), cached input apart', () => {
    const j = new CodexJournal();
    const tools = linesOf(new URL('./fixtures/codex-tools.jsonl', import.meta.url).pathname);
    j.ingest(tools);
    const turn = j.prompts[0]!.nativeRef;
    // The turn's own token counts, as the rollout wrote them (last_token_usage per request).
    let owner: string | null = null;
    let input = 0;
    let output = 0;
    for (const l of tools) {
      const r = JSON.parse(l.text) as {
        type: string;
        payload: { type?: string; turn_id?: string; info?: { last_token_usage?: { input_tokens: number; output_tokens: number } } | null };
      };
      if (r.payload.type === 'task_started') owner = r.payload.turn_id ?? null;
      if (r.payload.type === 'token_count' && owner === turn && r.payload.info?.last_token_usage) {
        input += r.payload.info.last_token_usage.input_tokens;
        output += r.payload.info.last_token_usage.output_tokens;
      }
      if (r.payload.type === 'task_complete' && r.payload.turn_id === turn) owner = null;
    }
    const u = j.usageOf(turn)!;
    expect(u.inputTokens + u.cacheReadTokens).toBe(input);
    expect(u.outputTokens).toBe(output);
    expect(output).toBeGreaterThan(4); // more than one request
    expect(u.model).toBe('mock-model');
  });
});

describe('CodexJournal: a user message with pasted images', () => {
  it('is a prompt whose text is the typed text with its placeholders; the local_image parts carry no text', () => {
    // As codex-cli 0.171.0 wrote it (ids shortened, text_elements as written).
    const record = {
      type: 'event_msg',
      payload: {
        type: 'item_completed',
        turn_id: 't1',
        item: {
          type: 'UserMessage',
          id: 'u1',
          content: [
            { type: 'local_image', path: '/a/green.png' },
            { type: 'local_image', path: '/a/red.png' },
            {
              type: 'text',
              text: '[Image #1] [Image #2]  !describe it',
              text_elements: [{ byte_range: { start: 0, end: 10 }, placeholder: '[Image #1]' }],
            },
          ],
        },
      },
    };
    const j = new CodexJournal();
    j.ingest([{ offset: 0, end: 999, text: JSON.stringify(record) }]);
    expect(j.prompts.map((p) => [p.nativeRef, p.text])).toEqual([['t1', '[Image #1] [Image #2]  !describe it']]);
  });
});
