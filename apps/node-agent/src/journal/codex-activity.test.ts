import { type ActivityItem, type ActivityPayload, zActivity } from '@bria/core/protocol';
import { describe, expect, it } from 'vitest';
import { CodexActivity } from './codex-activity.ts';
import { linesOf } from './fixture-lines.ts';
import type { JournalLine } from './jsonl-tailer.ts';

// Recorded from Codex 0.171.0 in full-access (`-a never -s danger-full-access`) against the mock
// (the agent-level test activity-real.test.ts runs the same): "TOOLSTEPS-3 please" (three
// exec_command `echo step-<i>`), then "TOOLMIX-a please" (echo, then printf into mix-a.txt).
// The temp folder is renamed /tmp/cap/codex.
const FIXTURE = new URL('./fixtures/codex-tools.jsonl', import.meta.url).pathname;
const lines = linesOf(FIXTURE);
const turnIds = lines
  .map((l) => JSON.parse(l.text))
  .filter((r) => r.payload?.type === 'task_started')
  .map((r) => r.payload.turn_id as string);

const items = (payloads: ActivityPayload[]) => payloads.flatMap((p) => p.items);
function latest(payloads: ActivityPayload[]): ActivityItem[] {
  const byRef = new Map<string, ActivityItem>();
  for (const i of items(payloads)) byRef.set(i.ref, i);
  return [...byRef.values()];
}

describe('CodexActivity on a real rollout', () => {
  it('gives the calls with exit codes and the messages between them, by turn id', () => {
    const a = new CodexActivity();
    a.ingest(lines);
    const out = a.drain();
    for (const p of out) expect(zActivity.safeParse(p).success).toBe(true);
    const [steps, mix] = turnIds;
    expect(items(out).map((i) => [i.kind, i.ref, i.subject ?? i.text, i.status, i.exitCode, i.nativeTurnId])).toEqual([
      ['text', 'msg_mock_1', 'MOCK-STEP-1: 1/3', 'ok', undefined, steps],
      ['command', 'call_mock_1', 'echo step-1', 'ok', 0, steps],
      ['text', 'msg_mock_3', 'MOCK-STEP-3: 2/3', 'ok', undefined, steps],
      ['command', 'call_mock_3', 'echo step-2', 'ok', 0, steps],
      ['text', 'msg_mock_4', 'MOCK-STEP-4: 3/3', 'ok', undefined, steps],
      ['command', 'call_mock_4', 'echo step-3', 'ok', 0, steps],
      ['text', 'msg_mock_6', 'MOCK-STEP-6: 1/2', 'ok', undefined, mix],
      ['command', 'call_mock_6', 'echo mix-a', 'ok', 0, mix],
      ['text', 'msg_mock_7', 'MOCK-STEP-7: 2/2', 'ok', undefined, mix],
      ['command', 'call_mock_7', "printf 'a\\nb\\n' > mix-a.txt", 'ok', 0, mix],
    ]);
    expect(items(out).find((i) => i.ref === 'call_mock_1')).toMatchObject({ toolName: 'exec_command', outputHead: 'step-1' });
    expect(items(out).find((i) => i.ref === 'call_mock_7')?.outputHead).toBeUndefined();
    for (const i of items(out)) expect(lines.find((l) => l.offset === i.source.offset)?.text).toContain(`"${i.source.recordId}"`);
    expect(out.at(-1)?.context).toEqual({ usedTokens: 13049, windowTokens: 258_400, windowSource: 'journal', compactions: 0 });
  });

  it('line by line: running, then the same ref ends; a fresh parser gets the same refs', () => {
    const a = new CodexActivity();
    const out: ActivityPayload[] = [];
    for (const l of lines) {
      a.ingest([l]);
      out.push(...a.drain());
    }
    expect(
      items(out)
        .filter((i) => i.ref === 'call_mock_3')
        .map((i) => i.status),
    ).toEqual(['running', 'ok']);
    const whole = new CodexActivity();
    whole.ingest(lines);
    expect(latest(out)).toEqual(latest(whole.drain()));
  });
});

describe('CodexActivity on a real failed command', () => {
  // Codex 0.171.0, full-access: "TOOLFAIL-3 go" (exec_command `echo failing-3 >&2; exit 3`).
  const failed = linesOf(new URL('./fixtures/codex-fail.jsonl', import.meta.url).pathname);

  it('is an error with the exit code of its CommandExecution item and output', () => {
    const a = new CodexActivity();
    a.ingest(failed);
    const calls = latest(a.drain()).filter((i) => i.kind === 'command');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ ref: 'call_mock_1', subject: 'echo failing-3 >&2; exit 3', status: 'error', exitCode: 3, outputHead: 'failing-3' });
  });
});

describe('CodexActivity after a real /compact', () => {
  // Codex 0.171.0: "one", "two", /compact (typed by SessionHost.compact), "after". It writes both a
  // `compacted` line and an item_completed ContextCompaction for the one compaction.
  const compacted = linesOf(new URL('./fixtures/codex-compact.jsonl', import.meta.url).pathname);

  it('counts one compaction, not two', () => {
    expect(compacted.filter((l) => l.text.includes('"type":"compacted"'))).toHaveLength(1);
    expect(compacted.filter((l) => l.text.includes('"type":"ContextCompaction"'))).toHaveLength(1);
    const a = new CodexActivity();
    a.ingest(compacted);
    const out = a.drain();
    expect(out.at(-1)?.context).toMatchObject({ compactions: 1, windowSource: 'journal' });
    expect(out.at(-1)?.context?.usedTokens).toBeGreaterThan(0);
    expect(items(out)).toEqual([]);
  });
});

/** Synthetic rollout lines in the shapes of the real one. */
function rollout(recs: [string, Record<string, unknown>][]): JournalLine[] {
  let offset = 0;
  return recs.map(([type, payload], i) => {
    const text = JSON.stringify({ timestamp: new Date(1_000_000 + i * 1000).toISOString(), type, payload });
    const line = { offset, end: offset + text.length + 1, text };
    offset = line.end;
    return line;
  });
}
const started = (turn: string, window = 1000): [string, Record<string, unknown>] => [
  'event_msg',
  { type: 'task_started', turn_id: turn, model_context_window: window },
];
const call = (id: string, name: string, args: Record<string, unknown>): [string, Record<string, unknown>] => [
  'response_item',
  { type: 'function_call', name, arguments: JSON.stringify(args), call_id: id },
];
const output = (id: string, out: string): [string, Record<string, unknown>] => ['response_item', { type: 'function_call_output', call_id: id, output: out }];
const message = (id: string, text: string): [string, Record<string, unknown>] => [
  'event_msg',
  { type: 'item_completed', turn_id: 'T', item: { type: 'AgentMessage', id, content: [{ type: 'Text', text }] } },
];
const complete = (last: string): [string, Record<string, unknown>] => ['event_msg', { type: 'task_complete', turn_id: 'T', last_agent_message: last }];
const PATCH = '*** Begin Patch\n*** Update File: a.ts\n@@\n-old\n+new\n+more\n*** End Patch';

describe('CodexActivity: what each record means', () => {
  const cases: { name: string; recs: [string, Record<string, unknown>][]; want: Partial<ActivityItem>[]; context?: Record<string, unknown> }[] = [
    {
      name: 'a failing command: its exit code from the output, an error',
      recs: [
        started('T'),
        call('c', 'exec_command', { cmd: 'false' }),
        output('c', 'Chunk ID: x\nWall time: 0 seconds\nProcess exited with code 1\nOutput:\nboom\n'),
        complete('end'),
      ],
      want: [{ ref: 'c', kind: 'command', status: 'error', exitCode: 1, outputHead: 'boom', nativeTurnId: 'T' }],
    },
    {
      name: 'a command refused by a hook is an error without an exit code',
      recs: [
        started('T'),
        call('c', 'exec_command', { cmd: 'rm x' }),
        output('c', 'exec_command failed: CreateProcess { message: "Rejected(\\"no\\")" }'),
        complete('end'),
      ],
      want: [{ ref: 'c', status: 'error', exitCode: null }],
    },
    {
      name: 'a long command stays running until its CommandExecution item ends it',
      recs: [
        started('T'),
        call('c', 'exec_command', { cmd: 'sleep 60' }),
        output('c', 'Chunk ID: x\nWall time: 10 seconds\nProcess running with session ID 5\nOutput:\n'),
        [
          'event_msg',
          {
            type: 'item_completed',
            turn_id: 'T',
            item: { type: 'CommandExecution', id: 'c', status: 'completed', exit_code: 0, aggregated_output: 'slept\n' },
            completed_at_ms: 5_000_000,
          },
        ],
      ],
      want: [{ ref: 'c', status: 'ok', exitCode: 0, outputHead: 'slept', endedAt: 5_000_000 }],
    },
    {
      name: 'apply_patch (freeform) is an edit with its +/- lines counted; request_user_input a question',
      recs: [
        started('T'),
        ['response_item', { type: 'custom_tool_call', name: 'apply_patch', input: PATCH, call_id: 'p' }],
        ['response_item', { type: 'custom_tool_call_output', call_id: 'p', output: 'Success. Updated the following files:\nM a.ts' }],
        call('q', 'request_user_input', { questions: [{ id: 'c', question: 'Which color?' }] }),
        output('q', '{"answers":{}}'),
      ],
      want: [
        { ref: 'p', kind: 'edit', subject: 'a.ts', status: 'ok', diff: { added: 2, removed: 1, text: PATCH } },
        { ref: 'q', kind: 'question', subject: 'Which color?', status: 'ok' },
      ],
    },
    {
      name: 'messages before a call are shown, the final one is not; a user `!cmd` is a command too',
      recs: [
        started('T'),
        message('m1', 'first'),
        message('m2', 'second'),
        call('c', 'exec_command', { cmd: 'ls' }),
        output('c', 'Process exited with code 0\nOutput:\na\n'),
        [
          'event_msg',
          {
            type: 'item_completed',
            turn_id: 'T',
            item: { type: 'CommandExecution', id: 'u', command: ['/bin/bash', '-lc', 'pwd'], status: 'completed', exit_code: 0, aggregated_output: '/w\n' },
          },
        ],
        message('m3', 'the answer'),
        complete('the answer'),
      ],
      want: [
        { ref: 'm1', text: 'first' },
        { ref: 'm2', text: 'second' },
        { ref: 'c', status: 'ok' },
        { ref: 'u', kind: 'command', subject: 'pwd', exitCode: 0 },
      ],
    },
    {
      name: 'an aborted turn shows all its messages',
      recs: [started('T'), message('m1', 'partial'), ['event_msg', { type: 'turn_aborted', turn_id: 'T', reason: 'interrupted' }]],
      want: [{ ref: 'm1', kind: 'text', text: 'partial', nativeTurnId: 'T' }],
    },
    {
      name: 'context: last input tokens (cached included), the stated window, compactions counted once',
      recs: [
        started('T', 258_400),
        ['event_msg', { type: 'token_count', info: { last_token_usage: { input_tokens: 900, cached_input_tokens: 800 }, model_context_window: 258_400 } }],
        ['compacted', { message: '' }],
        ['event_msg', { type: 'item_completed', turn_id: 'T', item: { type: 'ContextCompaction', id: 'k' } }],
      ],
      want: [],
      context: { usedTokens: 900, windowTokens: 258_400, windowSource: 'journal', compactions: 1 },
    },
  ];
  it.each(cases)('$name', ({ recs, want, context }) => {
    const a = new CodexActivity();
    a.ingest(rollout(recs));
    const out = a.drain();
    const got = latest(out);
    expect(got).toHaveLength(want.length);
    for (const [i, w] of want.entries()) expect(got[i]).toMatchObject(w);
    if (context) expect(out.at(-1)?.context).toEqual(context);
  });
});
