import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MD_SAMPLE_LONG_LINES } from './behaviour.ts';
import { startOpenAIMock } from './openai-mock.ts';
import { postJson, readEvents, type SseEvent } from './sse-test-client.ts';
import type { MockServer } from './types.ts';

const THREAD = '01a2368e-7807-7590-b45b-2826546f8e0b';
const HEADERS = { authorization: 'Bearer secret-openai-token', 'session-id': THREAD, 'thread-id': THREAD, originator: 'codex_exec' };

function user(text: string) {
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
}

function turn(text: string, extra: Record<string, unknown> = {}) {
  return {
    model: 'mock-model',
    stream: true,
    store: false,
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent. HANG FAIL500' }] },
      user('<environment_context>\n  <cwd>/x</cwd>\n</environment_context>'),
      user(text),
    ],
    ...extra,
  };
}

const deltaText = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === 'response.output_text.delta')
    .map((e) => e.data.delta)
    .join('');

describe('OpenAI Responses mock over HTTP', () => {
  let mock: MockServer;
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bria-openai-mock-'));
    mock = await startOpenAIMock({ logFile: join(dir, 'requests.jsonl'), slowChunks: 4, slowChunkMs: 100 });
  });
  afterEach(async () => {
    await mock.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('streams a turn in the Responses event order and logs it without the bearer token', async () => {
    const res = await postJson(`${mock.url}/v1/responses`, turn('hello codex'), HEADERS);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const { events, ended } = await readEvents(res);
    expect(ended).toBe(true);
    const names = events.map((e) => e.event);
    const deltas = names.filter((n) => n === 'response.output_text.delta').length;
    expect(deltas).toBeGreaterThan(1);
    expect(names).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(deltas).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    for (const e of events) expect(e.data.type).toBe(e.event);
    const reply = 'MOCK-REPLY-1: you said "hello codex"';
    expect(deltaText(events)).toBe(reply);
    expect(events.find((e) => e.event === 'response.output_text.done')?.data.text).toBe(reply);
    const done = events.at(-1)?.data.response;
    expect(done).toMatchObject({ id: 'resp_mock_1', status: 'completed' });
    expect(done.output[0]).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: reply }] });
    expect(done.usage.total_tokens).toBe(done.usage.input_tokens + done.usage.output_tokens);

    const logged = await mock.waitForRequest((r) => r.done, 2000);
    expect(logged).toMatchObject({ kind: 'turn', sessionId: THREAD, userText: 'hello codex', messageCount: 3, clientClosed: false });
    expect(logged.headers.authorization).toBeUndefined();
    expect(logged.headers.originator).toBe('codex_exec');
    const log = await readFile(join(dir, 'requests.jsonl'), 'utf8');
    expect(JSON.parse(log.trim())).toMatchObject({ id: 1, path: '/v1/responses', kind: 'turn', userText: 'hello codex' });
    expect(log).not.toContain('secret-openai-token');
  });

  it('falls back to thread-id and answers title requests with JSON', async () => {
    const format = { type: 'json_schema', name: 'title', strict: true, schema: { type: 'object', properties: { title: { type: 'string', maxLength: 36 } } } };
    const res = await postJson(`${mock.url}/v1/responses`, turn('name it', { text: { format } }), { 'thread-id': 'thread-only' });
    const { events } = await readEvents(res);
    expect(JSON.parse(deltaText(events))).toEqual({ title: 'Mock title 1' });
    expect(mock.requests[0]).toMatchObject({ kind: 'title', sessionId: 'thread-only', behaviour: 'title' });
    expect(mock.userTexts()).toEqual([]);
  });

  it('refuses LIMIT429-<s> as ChatGPT refuses a usage limit: usage_limit_reached with the reset and the x-codex windows', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await postJson(`${mock.url}/v1/responses`, turn('LIMIT429-120 now'), HEADERS);
    expect(r.status).toBe(429);
    const body = (await r.json()) as { error: { type: string; resets_at: number; resets_in_seconds: number } };
    expect(body.error.type).toBe('usage_limit_reached');
    expect(body.error.resets_at - before).toBeGreaterThanOrEqual(120);
    expect(r.headers.get('x-codex-primary-used-percent')).toBe('100');
    expect(r.headers.get('x-codex-primary-reset-at')).toBe(String(body.error.resets_at));
    expect(r.headers.get('x-codex-primary-window-minutes')).toBe('300');
  });

  it('magic words in the latest user text only: FAIL400, FAIL500, and none from older items', async () => {
    const bad = await postJson(`${mock.url}/v1/responses`, turn('FAIL400 now'), HEADERS);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { message: 'mock fail400', type: 'invalid_request_error', param: null, code: null } });
    const down = await postJson(`${mock.url}/v1/responses`, turn('FAIL500 now'), HEADERS);
    expect(down.status).toBe(500);
    expect((await down.json()).error).toMatchObject({ type: 'server_error', message: 'mock fail500' });
    const later = turn('all good now');
    later.input.splice(2, 0, user('FAIL500 earlier'), { type: 'message', role: 'assistant', content: [] } as never);
    const ok = await postJson(`${mock.url}/v1/responses`, later, HEADERS);
    expect(ok.status).toBe(200);
    expect(deltaText((await readEvents(ok)).events)).toBe('MOCK-REPLY-3: you said "all good now"');
    expect(mock.userTexts(THREAD)).toEqual(['FAIL400 now', 'FAIL500 now', 'all good now']);
  });

  it('SLOW spaces its chunks; TWOBLOCKS is an ordinary reply here', async () => {
    const posted = Date.now();
    const res = await postJson(`${mock.url}/v1/responses`, turn('SLOW'), HEADERS);
    const reading = Date.now();
    const { events } = await readEvents(res);
    const deltas = events.filter((e) => e.event === 'response.output_text.delta');
    expect(deltas.map((e) => e.data.delta)).toEqual(['MOCK-REPLY-1: you said "SLOW" [1/4]', ' [2/4]', ' [3/4]', ' [4/4]']);
    // Chunk k cannot arrive before k × 100 ms (slowChunkMs) after the request was posted (a lower bound that
    // holds on a busy machine, where two chunks can arrive in one read).
    for (const [k, d] of deltas.entries()) expect(reading + d.at - posted).toBeGreaterThanOrEqual(k * 100 - 2);
    const two = await readEvents(await postJson(`${mock.url}/v1/responses`, turn('TWOBLOCKS'), HEADERS));
    expect(deltaText(two.events)).toBe('MOCK-REPLY-2: you said "TWOBLOCKS"');
  });

  it('MDSAMPLE answers with the Markdown final, whole in output_text.done', async () => {
    const { events } = await readEvents(await postJson(`${mock.url}/v1/responses`, turn('show me MDSAMPLE'), HEADERS));
    const text = deltaText(events);
    expect(text.startsWith('MOCK-MD-1: a Markdown sample.\n')).toBe(true);
    expect(text).toContain('\n```ts\nconst answer: number = 1;\n');
    expect(text).toContain('\n| Fruit | Count | Note |\n|:--|--:|---|\n');
    expect(text.split('\n').filter((l) => l.startsWith('log line '))).toHaveLength(MD_SAMPLE_LONG_LINES);
    expect(events.find((e) => e.event === 'response.output_text.done')?.data.text).toBe(text);
    expect((await mock.waitForRequest((r) => r.done, 2000)).behaviour).toBe('mdsample');
  });

  it('TOOLSHELL-<x> answers with an escalated exec_command call, and its output with TOOL-DONE carrying it', async () => {
    const { events } = await readEvents(await postJson(`${mock.url}/v1/responses`, turn('please TOOLSHELL-x1 now'), HEADERS));
    const names = events.map((e) => e.event);
    expect(names.slice(-6)).toEqual([
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const item = events.at(-2)?.data;
    expect(item).toMatchObject({ output_index: 1, item: { type: 'function_call', call_id: 'call_mock_1', name: 'exec_command', status: 'completed' } });
    const args = { cmd: 'touch ran-x1', sandbox_permissions: 'require_escalated', justification: 'Create the marker ran-x1' };
    expect(JSON.parse(item?.item.arguments)).toEqual(args);
    expect(events.at(-1)?.data.response.output[1]).toMatchObject({ type: 'function_call', call_id: 'call_mock_1' });
    expect(mock.requests[0]).toMatchObject({ behaviour: 'toolshell', toolCall: { id: 'call_mock_1', name: 'exec_command', input: args } });

    // Codex's next request ends with the call and its output (here: the hook's deny).
    const next = turn('please TOOLSHELL-x1 now');
    next.input.push(
      { type: 'function_call', name: 'exec_command', arguments: JSON.stringify(args), call_id: 'call_mock_1' } as never,
      { type: 'function_call_output', call_id: 'call_mock_1', output: 'exec_command failed: Rejected("no")' } as never,
    );
    const done = await readEvents(await postJson(`${mock.url}/v1/responses`, next, HEADERS));
    expect(deltaText(done.events)).toBe('TOOL-DONE-2: is_error=false result=exec_command failed: Rejected("no")');
    expect(mock.requests[1]).toMatchObject({
      behaviour: 'tooldone',
      toolResult: { toolUseId: 'call_mock_1', toolName: 'exec_command', toolInput: args, content: 'exec_command failed: Rejected("no")' },
    });
    // Claude's tool words are plain replies here; TOOLASK is Codex's request_user_input.
    const bash = await readEvents(await postJson(`${mock.url}/v1/responses`, turn('TOOLBASH-b1'), HEADERS));
    expect(deltaText(bash.events)).toBe('MOCK-REPLY-3: you said "TOOLBASH-b1"');
    const ask = await readEvents(await postJson(`${mock.url}/v1/responses`, turn('TOOLASK'), HEADERS));
    const call = ask.events.at(-2)?.data.item;
    expect(call).toMatchObject({ type: 'function_call', name: 'request_user_input', call_id: 'call_mock_4' });
    expect(JSON.parse(call.arguments).questions[0]).toMatchObject({
      id: 'color',
      question: 'Which color do you prefer?',
      options: [{ label: 'Red' }, { label: 'Blue' }],
    });
  });

  it("TOOLFAIL-<n> fails a command; TOOLSTEPS-<n> and TOOLMIX-<x> call exec_command once per request, counted from the turn's outputs, then their final text", async () => {
    const run = async (prompt: string) => {
      const body = turn(prompt);
      const cmds: unknown[] = [];
      for (let i = 0; i < 6; i++) {
        const { events } = await readEvents(await postJson(`${mock.url}/v1/responses`, body, HEADERS));
        const call = events.find((e) => e.event === 'response.output_item.done' && e.data.item.type === 'function_call')?.data.item;
        if (!call) return { cmds, final: deltaText(events) };
        expect(call.name).toBe('exec_command');
        cmds.push(JSON.parse(call.arguments));
        body.input.push(
          { type: 'function_call', name: call.name, arguments: call.arguments, call_id: call.call_id } as never,
          { type: 'function_call_output', call_id: call.call_id, output: 'Process exited with code 0' } as never,
        );
      }
      throw new Error('no final answer');
    };
    expect(await run('please TOOLSTEPS-3')).toEqual({
      cmds: [{ cmd: 'echo step-1' }, { cmd: 'echo step-2' }, { cmd: 'echo step-3' }],
      final: 'MOCK-STEPS-DONE: 3 steps',
    });
    expect(mock.requests.slice(0, 4).map((r) => [r.behaviour, r.turnToolResults])).toEqual([
      ['toolsteps', 0],
      ['toolsteps', 1],
      ['toolsteps', 2],
      ['toolsteps', 3],
    ]);
    const fail = await readEvents(await postJson(`${mock.url}/v1/responses`, turn('TOOLFAIL-7'), HEADERS));
    const failCall = fail.events.find((e) => e.event === 'response.output_item.done' && e.data.item.type === 'function_call')?.data.item;
    expect(JSON.parse(failCall.arguments)).toEqual({ cmd: 'echo failing-7 >&2; exit 7' });
    expect(await run('TOOLMIX-q')).toEqual({ cmds: [{ cmd: 'echo mix-q' }, { cmd: "printf 'a\\nb\\n' > mix-q.txt" }], final: 'MOCK-MIX-DONE: mix-q' });
  });

  it('STALL holds after one delta and notices the client leaving', async () => {
    const abort = new AbortController();
    const res = await postJson(`${mock.url}/v1/responses`, turn('STALL'), HEADERS, abort.signal);
    const { events, idled } = await readEvents(res, { idleMs: 500 });
    expect(idled).toBe(true);
    expect(events.map((e) => e.event).at(-1)).toBe('response.output_text.delta');
    expect(events).toHaveLength(5);
    abort.abort();
    expect(await mock.waitForRequest((r) => r.done, 3000)).toMatchObject({ behaviour: 'stall', clientClosed: true });
  });

  it('HANG sends headers only and notices the client leaving', async () => {
    const abort = new AbortController();
    const res = await postJson(`${mock.url}/v1/responses`, turn('please HANG now'), HEADERS, abort.signal);
    expect(res.status).toBe(200);
    const { raw, idled } = await readEvents(res, { idleMs: 400 });
    expect([raw, idled]).toEqual(['', true]);
    // Matchable while still open: behaviour is known when the request is logged.
    expect(await mock.waitForRequest((r) => r.behaviour === 'hang', 500)).toMatchObject({ done: false, reply: null });
    abort.abort();
    expect(await mock.waitForRequest((r) => r.done, 3000)).toMatchObject({ behaviour: 'hang', clientClosed: true });
  });

  it('answers non-streaming requests with a response object', async () => {
    const res = await postJson(`${mock.url}/v1/responses`, { model: 'mock-model', input: 'plain' }, HEADERS);
    const body = await res.json();
    expect(body).toMatchObject({ object: 'response', status: 'completed' });
    expect(body.output[0].content[0].text).toBe('MOCK-REPLY-1: you said "plain"');
    expect((await fetch(`${mock.url}/v1/nothing`)).status).toBe(404);
    expect(mock.requests.map((r) => r.kind)).toEqual(['turn', 'other']);
  });
});
