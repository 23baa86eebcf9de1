import type { ActivityItem, ActivityPayload } from '@bria/core/protocol';
import { MAX_FRAME_BYTES, zActivity } from '@bria/core/protocol';
import { describe, expect, it } from 'vitest';
import { ClaudeActivity } from './claude-activity.ts';
import { ClaudeJournal } from './claude-journal.ts';
import { linesOf } from './fixture-lines.ts';
import type { JournalLine } from './jsonl-tailer.ts';

// Recorded from Claude Code 2.1.197 in bypassPermissions against the mock (the agent-level test
// activity-real.test.ts runs the same): "TOOLSTEPS-3 please" (three Bash `echo step-<i>`), then
// "TOOLMIX-a please" (Bash, Write mix-a.txt, Edit of it). The temp folder is renamed /tmp/cap/claude.
const FIXTURE = new URL('./fixtures/claude-tools.jsonl', import.meta.url).pathname;
const lines = linesOf(FIXTURE);
const records = lines.map((l) => JSON.parse(l.text) as Record<string, unknown>);
const promptOf = (text: string) => records.find((r) => r.type === 'user' && (r.message as { content: unknown }).content === text)?.uuid as string;

const items = (payloads: ActivityPayload[]) => payloads.flatMap((p) => p.items);
/** The latest state per ref, in the order refs first appeared. */
function latest(payloads: ActivityPayload[]): ActivityItem[] {
  const byRef = new Map<string, ActivityItem>();
  for (const i of items(payloads)) byRef.set(i.ref, i);
  return [...byRef.values()];
}

function whole(): ActivityPayload[] {
  const a = new ClaudeActivity();
  a.ingest(lines);
  return a.drain();
}

describe('ClaudeActivity on a real journal', () => {
  it('gives the calls and the texts between them, in order, with the turn they belong to', () => {
    const a = new ClaudeActivity();
    a.ingest(lines);
    const out = a.drain();
    for (const p of out) expect(zActivity.safeParse(p).success).toBe(true);
    const steps = promptOf('TOOLSTEPS-3 please');
    const mix = promptOf('TOOLMIX-a please');
    expect(items(out).map((i) => [i.kind, i.toolName ?? null, i.subject ?? i.text, i.status, i.nativeTurnId])).toEqual([
      ['text', null, 'MOCK-STEP-3: 1/3', 'ok', steps],
      ['command', 'Bash', 'echo step-1', 'ok', steps],
      ['text', null, 'MOCK-STEP-4: 2/3', 'ok', steps],
      ['command', 'Bash', 'echo step-2', 'ok', steps],
      ['text', null, 'MOCK-STEP-5: 3/3', 'ok', steps],
      ['command', 'Bash', 'echo step-3', 'ok', steps],
      ['text', null, 'MOCK-STEP-7: 1/3', 'ok', mix],
      ['command', 'Bash', 'echo mix-a', 'ok', mix],
      ['text', null, 'MOCK-STEP-8: 2/3', 'ok', mix],
      ['write', 'Write', 'mix-a.txt', 'ok', mix],
      ['text', null, 'MOCK-STEP-9: 3/3', 'ok', mix],
      ['edit', 'Edit', 'mix-a.txt', 'ok', mix],
    ]);
    // The final answers reach the hub as turn_final, not as activity.
    expect(items(out).some((i) => /DONE/.test(i.text ?? ''))).toBe(false);
    const [bash, write, edit] = items(out).filter((i) => i.nativeTurnId === mix && i.kind !== 'text');
    expect(bash).toMatchObject({ ref: 'toolu_mock_7', exitCode: null, outputHead: 'mix-a' });
    expect(bash!.endedAt! - bash!.startedAt).toBeGreaterThanOrEqual(0);
    expect(write?.diff).toEqual({ added: 1, removed: 0, text: '+++ mix-a.txt\n+old line' });
    expect(edit?.diff).toEqual({ added: 1, removed: 1, text: '--- mix-a.txt\n+++ mix-a.txt\n-old line\n+new line' });
    // Each item names the record it rests on, by uuid and byte offset.
    for (const i of items(out)) {
      const line = lines.find((l) => l.offset === i.source.offset)!;
      expect(JSON.parse(line.text).uuid).toBe(i.source.recordId);
    }
    expect(out.at(-1)?.context).toEqual({ usedTokens: 22810, windowTokens: 200_000, windowSource: 'model', compactions: 0 });
    expect(a.drain()).toEqual([]);
  });

  it('line by line: a call is first running, then the same ref ends; a fresh parser gets the same refs', () => {
    const a = new ClaudeActivity();
    const out: ActivityPayload[] = [];
    for (const l of lines) {
      a.ingest([l]);
      out.push(...a.drain());
    }
    const bash = items(out).filter((i) => i.ref === 'toolu_mock_3');
    expect(bash.map((i) => i.status)).toEqual(['running', 'ok']);
    expect(bash[0]!.endedAt).toBeUndefined();
    const whole = new ClaudeActivity();
    whole.ingest(lines);
    expect(latest(out)).toEqual(latest(whole.drain()));
  });

  it('from a floor on, only what changed at or after it is sent again', () => {
    const a = new ClaudeActivity();
    const mixOffset = lines.find((l) => l.text.includes('"content":"TOOLMIX-a please"'))!.offset;
    a.floor = mixOffset;
    a.ingest(lines);
    const out = a.drain();
    expect(items(out).every((i) => i.source.offset >= mixOffset)).toBe(true);
    expect(items(out)).toHaveLength(6);
    expect(out.at(-1)?.context?.usedTokens).toBe(22810);
  });

  it('the journal reader feeds it, and a failing activity reader does not cost the turn outcomes', () => {
    const j = new ClaudeJournal();
    j.ingest(lines);
    expect(latest(j.activity.drain()).map((i) => i.ref)).toEqual(latest(whole()).map((i) => i.ref));
    const broken = new ClaudeJournal();
    broken.activity.add = () => {
      throw new Error('bug');
    };
    broken.ingest(lines);
    expect(broken.outcome(promptOf('TOOLMIX-a please'))).toMatchObject({ state: 'completed', finalText: 'MOCK-MIX-DONE: mix-a' });
  });

  it('a result written before its call still ends that call', () => {
    const bashAt = lines.findIndex((l) => l.text.includes('"id":"toolu_mock_3"'));
    const swapped = [...lines];
    [swapped[bashAt], swapped[bashAt + 1]] = [swapped[bashAt + 1]!, swapped[bashAt]!];
    const a = new ClaudeActivity();
    a.ingest(swapped);
    expect(latest(a.drain()).find((i) => i.ref === 'toolu_mock_3')).toMatchObject({ status: 'ok', outputHead: 'step-1' });
  });
});

describe('ClaudeActivity on a real failed command', () => {
  // Claude Code 2.1.197, bypassPermissions: "TOOLFAIL-3 go" (Bash `echo failing-3 >&2; exit 3`).
  const failed = linesOf(new URL('./fixtures/claude-fail.jsonl', import.meta.url).pathname);

  it('is an error with the exit code Claude states in the result', () => {
    const a = new ClaudeActivity();
    a.ingest(failed);
    const calls = latest(a.drain()).filter((i) => i.kind === 'command');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ subject: 'echo failing-3 >&2; exit 3', status: 'error', exitCode: 3, outputHead: 'Exit code 3\nfailing-3' });
  });
});

describe('ClaudeActivity after a real /compact', () => {
  // Claude Code 2.1.197: "one", "two", /compact (typed by SessionHost.compact), "after".
  const compacted = linesOf(new URL('./fixtures/claude-compact.jsonl', import.meta.url).pathname);

  it('counts the compact_boundary record once and shows no final answer as activity', () => {
    const a = new ClaudeActivity();
    const out: ActivityPayload[] = [];
    for (const l of compacted) {
      a.ingest([l]);
      out.push(...a.drain());
    }
    expect(compacted.filter((l) => l.text.includes('"subtype":"compact_boundary"'))).toHaveLength(1);
    // Before it the count was 0; from it on 1 (sent again with each later change of the use).
    const counts = out.map((p) => p.context?.compactions).filter((c) => c !== undefined);
    expect(counts[0]).toBe(0);
    expect(counts.slice(counts.indexOf(1))).toEqual(Array(counts.length - counts.indexOf(1)).fill(1));
    expect(items(out)).toEqual([]);
  });
});

/** Synthetic records in the shapes of the real journal, one chain of parentUuid links. */
function chain(recs: Record<string, unknown>[]): JournalLine[] {
  let offset = 0;
  let parent: string | null = null;
  return recs.map((r, i) => {
    const uuid = (r.uuid as string | undefined) ?? `u${i}`;
    const text = JSON.stringify({ parentUuid: parent, uuid, timestamp: new Date(1_000_000 + i * 1000).toISOString(), ...r });
    parent = uuid;
    const line = { offset, end: offset + text.length + 1, text };
    offset = line.end;
    return line;
  });
}
const prompt = (text: string) => ({ type: 'user', message: { role: 'user', content: text } });
const said = (
  id: string,
  content: unknown[],
  model = 'claude-opus-4-8',
  usage = { input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 100 },
) => ({ type: 'assistant', message: { id, model, role: 'assistant', content, usage } });
const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use', id, name, input });
const result = (id: string, content: unknown, isError?: boolean) => ({
  type: 'user',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError === undefined ? {} : { is_error: isError }) }] },
});
const done = { type: 'system', subtype: 'turn_duration', durationMs: 5 };

describe('ClaudeActivity: what each record means', () => {
  const cases: { name: string; recs: Record<string, unknown>[]; want: Partial<ActivityItem>[]; context?: Record<string, unknown> }[] = [
    {
      name: 'a failed command states its exit code; is_error is an error',
      recs: [
        prompt('go'),
        said('m1', [use('t1', 'Bash', { command: 'false' })]),
        result('t1', 'Exit code 1\nboom', true),
        said('m2', [{ type: 'text', text: 'fine' }]),
        done,
      ],
      want: [{ ref: 't1', kind: 'command', subject: 'false', status: 'error', exitCode: 1, outputHead: 'Exit code 1\nboom', nativeTurnId: 'u0' }],
    },
    {
      name: 'kinds by tool name; subjects from the input; an unknown tool is a tool',
      recs: [
        prompt('go'),
        said('m1', [use('r', 'Read', { file_path: '/a.ts' })]),
        result('r', 'x'),
        said('m2', [use('g', 'Grep', { pattern: 'foo' })]),
        result('g', 'x'),
        said('m3', [use('q', 'AskUserQuestion', { questions: [{ question: 'Which?' }] })]),
        result('q', 'x'),
        said('m4', [use('z', 'TodoWrite', { todos: [] })]),
        result('z', [{ type: 'text', text: 'saved' }]),
        said('m5', [{ type: 'text', text: 'end' }]),
        done,
      ],
      want: [
        { ref: 'r', kind: 'read', subject: '/a.ts', status: 'ok' },
        { ref: 'g', kind: 'search', subject: 'foo' },
        { ref: 'q', kind: 'question', subject: 'Which?' },
        { ref: 'z', kind: 'tool', toolName: 'TodoWrite', outputHead: 'saved' },
      ],
    },
    {
      name: 'MultiEdit counts every replacement; lines both sides share are not counted',
      recs: [
        prompt('go'),
        said('m1', [
          use('e', 'MultiEdit', {
            file_path: 'f',
            edits: [
              { old_string: 'a\nb\nc', new_string: 'a\nB\nc' },
              { old_string: 'x', new_string: 'x\ny' },
            ],
          }),
        ]),
        result('e', 'ok'),
        said('m2', [{ type: 'text', text: 'end' }]),
        done,
      ],
      want: [{ ref: 'e', kind: 'edit', diff: { added: 2, removed: 1, text: '--- f\n+++ f\n-b\n+B\n+y' } }],
    },
    {
      name: 'text of the message that calls a tool is shown; the final answer is not',
      recs: [
        prompt('go'),
        said('m1', [{ type: 'text', text: 'looking' }]),
        said('m1', [use('t', 'Bash', { command: 'ls' })]),
        result('t', 'a'),
        said('m2', [{ type: 'text', text: 'answer' }]),
        done,
      ],
      want: [
        { ref: 'u1', kind: 'text', text: 'looking' },
        { ref: 't', kind: 'command' },
      ],
    },
    {
      name: 'an interrupted turn has no final answer: its text is shown; a synthetic record is not',
      recs: [
        prompt('go'),
        said('m1', [{ type: 'text', text: 'partial' }]),
        said('s', [{ type: 'text', text: 'No response requested.' }], '<synthetic>'),
        { type: 'user', message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] } },
      ],
      want: [{ ref: 'u1', kind: 'text', text: 'partial', nativeTurnId: 'u0' }],
    },
    {
      name: 'context: the latest response, a 1M model, and compactions',
      recs: [
        prompt('go'),
        said('m1', [{ type: 'text', text: 'a' }], 'claude-opus-4-8[1m]'),
        done,
        { type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted' },
      ],
      want: [],
      context: { usedTokens: 115, windowTokens: 1_000_000, windowSource: 'model', compactions: 1 },
    },
  ];
  it.each(cases)('$name', ({ recs, want, context }) => {
    const a = new ClaudeActivity();
    a.ingest(chain(recs));
    const out = a.drain();
    const got = latest(out);
    expect(got).toHaveLength(want.length);
    for (const [i, w] of want.entries()) expect(got[i]).toMatchObject(w);
    if (context) expect(out.at(-1)?.context).toEqual(context);
  });

  it('never more items in one event than the protocol allows', () => {
    const recs: Record<string, unknown>[] = [prompt('go')];
    for (let i = 0; i < 1200; i++) recs.push(said(`m${i}`, [use(`t${i}`, 'Bash', { command: `echo ${i}` })]), result(`t${i}`, `${i}`));
    const a = new ClaudeActivity();
    a.ingest(chain(recs));
    const out = a.drain();
    expect(out.map((p) => p.items.length)).toEqual([500, 500, 200]);
    for (const p of out) expect(zActivity.safeParse(p).success).toBe(true);
    expect(out.flatMap((p) => p.items.map((i) => i.ref))).toEqual(Array.from({ length: 1200 }, (_, i) => `t${i}`));
  });

  it('keeps every event frame under the frame limit, counting bytes (multi-byte text), and loses nothing', () => {
    const wide = 'ü日🙂'.repeat(700);
    const recs: Record<string, unknown>[] = [prompt('go')];
    for (let i = 0; i < 300; i++) {
      recs.push(said(`m${i}`, [use(`t${i}`, 'Edit', { file_path: wide, old_string: wide, new_string: `${wide}\n${wide}` })]), result(`t${i}`, wide));
    }
    const a = new ClaudeActivity();
    a.ingest(chain(recs));
    const out = a.drain();
    expect(out.length).toBeGreaterThan(1);
    for (const p of out) {
      expect(zActivity.safeParse(p).success).toBe(true);
      expect(Buffer.byteLength(JSON.stringify({ type: 'event', seq: 1, at: 0, event: 'activity', payload: p }))).toBeLessThan(MAX_FRAME_BYTES);
    }
    expect(out.flatMap((p) => p.items.map((i) => i.ref))).toEqual(Array.from({ length: 300 }, (_, i) => `t${i}`));
  });
});
