import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './anthropic-mock.ts';
import { MD_SAMPLE_LONG_LINES } from './behaviour.ts';
import { postJson, readEvents } from './sse-test-client.ts';
import type { MockServer } from './types.ts';

const SESSION = '11111111-2222-4333-8444-555555555555';
const HEADERS = { 'x-api-key': 'sk-secret-never-logged', 'x-claude-code-session-id': SESSION, 'anthropic-version': '2023-06-01' };

function turn(text: string, extra: Record<string, unknown> = {}) {
  return { model: 'claude-opus-4-8', max_tokens: 64000, stream: true, messages: [{ role: 'user', content: text }], ...extra };
}

describe('Anthropic mock over HTTP', () => {
  let mock: MockServer;
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bria-anthropic-mock-'));
    mock = await startAnthropicMock({ logFile: join(dir, 'requests.jsonl'), slowChunks: 5, slowChunkMs: 100 });
  });
  afterEach(async () => {
    await mock.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('streams a plain turn in the real event order and logs it without credentials', async () => {
    const res = await postJson(`${mock.url}/v1/messages?beta=true`, turn('hello there'), HEADERS);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const { events, raw, ended } = await readEvents(res);
    expect(ended).toBe(true);
    expect(raw.startsWith('event: message_start\ndata: {')).toBe(true);

    const names = events.map((e) => e.event);
    const deltas = names.filter((n) => n === 'content_block_delta').length;
    expect(deltas).toBeGreaterThan(1);
    expect(names).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      ...Array(deltas).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event);
    const text = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => e.data.delta.text)
      .join('');
    expect(text).toBe('MOCK-REPLY-1: you said "hello there"');
    expect(events[0]?.data.message).toMatchObject({ id: 'msg_mock_1', role: 'assistant', model: 'claude-opus-4-8', content: [] });
    const delta = events.find((e) => e.event === 'message_delta');
    expect(delta?.data.delta.stop_reason).toBe('end_turn');
    expect(delta?.data.usage.output_tokens).toBeGreaterThan(0);

    const logged = await mock.waitForRequest((r) => r.id === 1 && r.done, 2000);
    expect(logged).toMatchObject({
      method: 'POST',
      path: '/v1/messages?beta=true',
      kind: 'turn',
      sessionId: SESSION,
      userText: 'hello there',
      messageCount: 1,
      behaviour: 'reply',
      status: 200,
      clientClosed: false,
    });
    expect(logged.headers['x-api-key']).toBeUndefined();
    const line = await readFile(join(dir, 'requests.jsonl'), 'utf8');
    expect(JSON.parse(line.trim())).toMatchObject({ id: 1, kind: 'turn', sessionId: SESSION, userText: 'hello there' });
    expect(line).not.toContain('sk-secret-never-logged');
  });

  it('reads only the latest user message, skipping system entries and injected reminders', async () => {
    const res = await postJson(
      `${mock.url}/v1/messages?beta=true`,
      turn('', {
        messages: [
          { role: 'user', content: 'first FAIL500' },
          { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
          { role: 'system', content: 'resumed' },
          {
            role: 'user',
            content: [
              { type: 'text', text: '<system-reminder>\nsay HANG\n</system-reminder>\n\n' },
              { type: 'text', text: 'second one' },
            ],
          },
          { role: 'system', content: 'agent listing' },
        ],
      }),
      HEADERS,
    );
    expect(res.status).toBe(200);
    const { events } = await readEvents(res);
    const text = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => e.data.delta.text)
      .join('');
    expect(text).toBe('MOCK-REPLY-1: you said "second one"');
    expect(mock.requests[0]).toMatchObject({ messageCount: 5, userText: 'second one' });
  });

  it('answers title requests with a JSON title and keeps them out of userTexts', async () => {
    const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
    const res = await postJson(
      `${mock.url}/v1/messages?beta=true`,
      turn('name this chat', { model: 'claude-haiku-4-5-20251001', output_config: { format: { type: 'json_schema', schema } } }),
      HEADERS,
    );
    const { events } = await readEvents(res);
    const text = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => e.data.delta.text)
      .join('');
    expect(JSON.parse(text)).toEqual({ title: 'Mock title 1' });
    await (await postJson(`${mock.url}/v1/messages`, turn('real turn'), HEADERS)).text();
    expect(mock.requests.map((r) => r.kind)).toEqual(['title', 'turn']);
    expect(mock.userTexts()).toEqual(['real turn']);
    expect(mock.userTexts(SESSION)).toEqual(['real turn']);
    expect(mock.userTexts('other-session')).toEqual([]);
  });

  it('serves non-streaming JSON, count_tokens and the HEAD probe', async () => {
    const res = await postJson(`${mock.url}/v1/messages`, turn('plain json', { stream: false }), HEADERS);
    expect(await res.json()).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'MOCK-REPLY-1: you said "plain json"' }],
      stop_reason: 'end_turn',
    });
    const count = await postJson(`${mock.url}/v1/messages/count_tokens?beta=true`, turn('x'), HEADERS);
    expect((await count.json()).input_tokens).toBeGreaterThan(0);
    expect((await fetch(mock.url, { method: 'HEAD' })).status).toBe(200);
    expect(mock.requests.map((r) => r.kind)).toEqual(['turn', 'other', 'other']);
  });

  it('refuses LIMIT429-<s> as the API refuses a usage limit: 429 rate_limit_error, the unified reset, no retry', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await postJson(`${mock.url}/v1/messages`, turn('please LIMIT429-120'), HEADERS);
    expect(r.status).toBe(429);
    expect(await r.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(r.headers.get('anthropic-ratelimit-unified-status')).toBe('rejected');
    expect(r.headers.get('x-should-retry')).toBe('false');
    const reset = Number(r.headers.get('anthropic-ratelimit-unified-reset'));
    expect(reset - before).toBeGreaterThanOrEqual(120);
    expect(reset - before).toBeLessThanOrEqual(122);
  });

  it('fails with the API error shape on FAIL400 and FAIL500', async () => {
    const bad = await postJson(`${mock.url}/v1/messages`, turn('please FAIL400'), HEADERS);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'mock fail400' } });
    const down = await postJson(`${mock.url}/v1/messages`, turn('please FAIL500'), HEADERS);
    expect(down.status).toBe(500);
    expect(await down.json()).toMatchObject({ type: 'error', error: { type: 'api_error', message: 'mock fail500' } });
    expect(mock.requests.map((r) => [r.behaviour, r.status])).toEqual([
      ['fail400', 400],
      ['fail500', 500],
    ]);
  });

  it('sends two text blocks on TWOBLOCKS', async () => {
    const { events } = await readEvents(await postJson(`${mock.url}/v1/messages`, turn('TWOBLOCKS please'), HEADERS));
    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => e.data.index);
    const stops = events.filter((e) => e.event === 'content_block_stop').map((e) => e.data.index);
    expect(starts).toEqual([0, 1]);
    expect(stops).toEqual([0, 1]);
    const byBlock = [0, 1].map((i) =>
      events
        .filter((e) => e.event === 'content_block_delta' && e.data.index === i)
        .map((e) => e.data.delta.text)
        .join(''),
    );
    expect(byBlock).toEqual(['MOCK-REPLY-1: you said "TWOBLOCKS please"', ' MOCK-SECOND-BLOCK-1']);
    expect(events.filter((e) => e.event === 'ping')).toHaveLength(1);
  });

  it('answers MDSAMPLE with a Markdown final: a fenced block with a language, a table and a long block', async () => {
    const { events } = await readEvents(await postJson(`${mock.url}/v1/messages`, turn('show me MDSAMPLE'), HEADERS));
    const text = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => e.data.delta.text)
      .join('');
    expect(text.startsWith('MOCK-MD-1: a Markdown sample.\n')).toBe(true);
    expect(text).toContain('\n```ts\nconst answer: number = 1;\n');
    expect(text).toContain('\n| Fruit | Count | Note |\n|:--|--:|---|\n');
    expect(text).toContain(`\n\`\`\`text\nlog line 1 of ${MD_SAMPLE_LONG_LINES}\n`);
    expect(text.endsWith(`log line ${MD_SAMPLE_LONG_LINES} of ${MD_SAMPLE_LONG_LINES}\n\`\`\``)).toBe(true);
    expect(events.find((e) => e.event === 'message_delta')?.data.delta.stop_reason).toBe('end_turn');
    const logged = await mock.waitForRequest((r) => r.done, 2000);
    expect(logged).toMatchObject({ behaviour: 'mdsample', reply: text });
  });

  it('streams SLOW in spaced chunks', async () => {
    const posted = Date.now();
    const res = await postJson(`${mock.url}/v1/messages`, turn('go SLOW'), HEADERS);
    const reading = Date.now();
    const { events } = await readEvents(res);
    const deltas = events.filter((e) => e.event === 'content_block_delta');
    expect(deltas.map((e) => e.data.delta.text)).toEqual(['MOCK-REPLY-1: you said "go SLOW" [1/5]', ' [2/5]', ' [3/5]', ' [4/5]', ' [5/5]']);
    // Chunk k cannot arrive before k × 100 ms (slowChunkMs) after the request was posted. Gaps
    // measured at the reader are not a bound: on a busy machine two chunks can arrive in one read.
    for (const [k, d] of deltas.entries()) expect(reading + d.at - posted).toBeGreaterThanOrEqual(k * 100 - 2);
    expect(events.at(-1)?.event).toBe('message_stop');
  });

  it('STALL sends one chunk and holds the stream until the client leaves', async () => {
    const abort = new AbortController();
    const res = await postJson(`${mock.url}/v1/messages`, turn('STALL here'), HEADERS, abort.signal);
    const { events, idled } = await readEvents(res, { idleMs: 600 });
    expect(idled).toBe(true);
    expect(events.map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta']);
    expect(mock.requests[0]?.done).toBe(false);
    abort.abort();
    const closed = await mock.waitForRequest((r) => r.done, 3000);
    expect(closed).toMatchObject({ behaviour: 'stall', clientClosed: true });
    const line = JSON.parse((await readFile(join(dir, 'requests.jsonl'), 'utf8')).trim());
    expect(line).toMatchObject({ id: 1, clientClosed: true });
  });

  it('HANG sends headers only; close() cuts open streams', async () => {
    const res = await postJson(`${mock.url}/v1/messages`, turn('HANG now'), HEADERS);
    expect(res.status).toBe(200);
    const { raw, idled } = await readEvents(res, { idleMs: 500 });
    expect(idled).toBe(true);
    expect(raw).toBe('');
    const started = Date.now();
    await mock.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(mock.requests[0]).toMatchObject({ behaviour: 'hang', done: true, clientClosed: false });
    await expect(res.text()).rejects.toThrow();
  });

  it('reads magic words from the last text block only, so texts merged after a failed turn do not fail again', async () => {
    const res = await postJson(
      `${mock.url}/v1/messages?beta=true`,
      turn('', {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'please FAIL400' },
              { type: 'text', text: 'next question' },
            ],
          },
        ],
      }),
      HEADERS,
    );
    expect(res.status).toBe(200);
    const entry = mock.requests.at(-1);
    expect(entry?.behaviour).toBe('reply');
    expect(entry?.userText).toBe('please FAIL400\nnext question');
  });

  it('TOOLBASH-<x> answers with a Bash tool call, and the tool result with TOOL-DONE carrying that result', async () => {
    const { events } = await readEvents(await postJson(`${mock.url}/v1/messages`, turn('please TOOLBASH-a1 now'), HEADERS));
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      ...events.filter((e) => e.event === 'content_block_delta' && e.data.index === 0).map(() => 'content_block_delta'),
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const start = events.filter((e) => e.event === 'content_block_start')[1];
    expect(start?.data).toMatchObject({ index: 1, content_block: { type: 'tool_use', id: 'toolu_mock_1', name: 'Bash', input: {} } });
    const json = events.find((e) => e.event === 'content_block_delta' && e.data.index === 1)?.data.delta;
    expect(json.type).toBe('input_json_delta');
    expect(JSON.parse(json.partial_json)).toEqual({ command: 'touch ran-a1', description: 'Touch ran-a1' });
    expect(events.find((e) => e.event === 'message_delta')?.data.delta.stop_reason).toBe('tool_use');
    expect(mock.requests[0]).toMatchObject({ behaviour: 'toolbash', toolCall: { id: 'toolu_mock_1', name: 'Bash' } });

    // The CLI's next request: the earlier prompt, the assistant's tool_use, the (denied) result.
    const next = turn('', {
      messages: [
        { role: 'user', content: 'please TOOLBASH-a1 now' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_mock_1', name: 'Bash', input: { command: 'touch ran-a1' } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_mock_1', content: 'Denied remotely', is_error: true },
            { type: 'text', text: '<system-reminder>x</system-reminder>' },
          ],
        },
      ],
    });
    const done = await readEvents(await postJson(`${mock.url}/v1/messages`, next, HEADERS));
    const text = done.events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => e.data.delta.text)
      .join('');
    expect(text).toBe('TOOL-DONE-2: is_error=true result=Denied remotely');
    expect(done.events.find((e) => e.event === 'message_delta')?.data.delta.stop_reason).toBe('end_turn');
    expect(mock.requests[1]).toMatchObject({
      behaviour: 'tooldone',
      toolResult: { toolUseId: 'toolu_mock_1', isError: true, content: 'Denied remotely' },
    });

    // Not streamed: the same call as one JSON message.
    const plain = await postJson(`${mock.url}/v1/messages`, turn('TOOLBASH-b2', { stream: false }), HEADERS);
    const body = (await plain.json()) as { content: unknown[]; stop_reason: string };
    expect(body.stop_reason).toBe('tool_use');
    expect(body.content[1]).toEqual({ type: 'tool_use', id: 'toolu_mock_3', name: 'Bash', input: { command: 'touch ran-b2', description: 'Touch ran-b2' } });
  });

  it('TOOLWRITE, TOOLEDIT (Read, then Edit on its result), TOOLASK, TOOLASKMULTI and TOOLFAIL answer with their tool calls', async () => {
    const toolOf = async (body: Record<string, unknown>) => {
      const { events } = await readEvents(await postJson(`${mock.url}/v1/messages`, body, HEADERS));
      expect(events.find((e) => e.event === 'message_delta')?.data.delta.stop_reason).toBe('tool_use');
      const start = events.filter((e) => e.event === 'content_block_start')[1]?.data.content_block;
      const json = events.find((e) => e.event === 'content_block_delta' && e.data.index === 1)?.data.delta.partial_json;
      return { name: start.name as string, id: start.id as string, input: JSON.parse(json) };
    };
    expect(await toolOf(turn('TOOLWRITE-w1'))).toEqual({
      name: 'Write',
      id: 'toolu_mock_1',
      input: { file_path: 'written-w1.txt', content: 'written by TOOLWRITE-w1\n' },
    });
    const read = await toolOf(turn('please TOOLEDIT-e1'));
    expect(read).toEqual({ name: 'Read', id: 'toolu_mock_2', input: { file_path: 'edit-e1.txt' } });
    const afterRead = (content: string, isError = false) =>
      turn('', {
        messages: [
          { role: 'user', content: 'please TOOLEDIT-e1' },
          { role: 'assistant', content: [{ type: 'tool_use', id: read.id, name: 'Read', input: { file_path: '/w/edit-e1.txt' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: read.id, content, is_error: isError }] },
        ],
      });
    expect(await toolOf(afterRead('1\tbefore e1'))).toEqual({
      name: 'Edit',
      id: 'toolu_mock_3',
      input: { file_path: '/w/edit-e1.txt', old_string: 'before e1', new_string: 'after e1' },
    });
    expect(mock.requests[2]).toMatchObject({ behaviour: 'tooledit', toolResult: { toolName: 'Read', toolInput: { file_path: '/w/edit-e1.txt' } } });
    // A failed Read ends the turn with its result instead of an edit.
    const failed = await readEvents(await postJson(`${mock.url}/v1/messages`, afterRead('no such file', true), HEADERS));
    expect(
      failed.events
        .filter((e) => e.event === 'content_block_delta')
        .map((e) => e.data.delta.text)
        .join(''),
    ).toBe('TOOL-DONE-4: is_error=true result=no such file');

    const ask = await toolOf(turn('TOOLASK'));
    expect(ask.name).toBe('AskUserQuestion');
    expect(ask.input.questions).toEqual([
      {
        question: 'Which color do you prefer?',
        header: 'Color',
        multiSelect: false,
        options: [
          { label: 'Red', description: 'warm' },
          { label: 'Blue', description: 'cool' },
        ],
      },
    ]);
    const multi = await toolOf(turn('TOOLASKMULTI'));
    expect(multi.input.questions[0]).toMatchObject({ question: 'Which toppings do you want?', multiSelect: true });
    expect(multi.input.questions[0].options.map((o: { label: string }) => o.label)).toEqual(['Cheese', 'Ham', 'Olives']);
    expect(await toolOf(turn('TOOLFAIL-3'))).toEqual({
      name: 'Bash',
      id: 'toolu_mock_7',
      input: { command: 'echo failing-3 >&2; exit 3', description: 'Fail with 3' },
    });
    // TOOLSHELL is Codex's; here it is a plain reply.
    const shell = await readEvents(await postJson(`${mock.url}/v1/messages`, turn('TOOLSHELL-s1'), HEADERS));
    expect(shell.events.find((e) => e.event === 'message_delta')?.data.delta.stop_reason).toBe('end_turn');
  });

  it("TOOLSTEPS-<n> calls Bash n times, one step per request counted from the turn's tool results, then MOCK-STEPS-DONE", async () => {
    // The CLI resends the whole turn: prompt, then per step the tool_use and its result (with a reminder).
    const history = (steps: number, prompt = 'please TOOLSTEPS-3 now') => {
      const messages: unknown[] = [
        { role: 'user', content: 'TOOLSTEPS-9 from an earlier turn' },
        { role: 'assistant', content: [{ type: 'text', text: 'MOCK-STEPS-DONE: 9 steps' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: prompt },
            { type: 'text', text: '<system-reminder>x</system-reminder>' },
          ],
        },
      ];
      for (let i = 1; i <= steps; i++) {
        messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: `echo step-${i}` } }] });
        messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `step-${i}`, is_error: false }] });
      }
      return turn('', { messages });
    };
    const answer = async (body: Record<string, unknown>) => {
      const { events } = await readEvents(await postJson(`${mock.url}/v1/messages`, body, HEADERS));
      const json = events.find((e) => e.event === 'content_block_delta' && e.data.index === 1)?.data.delta.partial_json;
      const text = events
        .filter((e) => e.event === 'content_block_delta' && e.data.index === 0)
        .map((e) => e.data.delta.text)
        .join('');
      return { stop: events.find((e) => e.event === 'message_delta')?.data.delta.stop_reason, input: json ? JSON.parse(json) : null, text };
    };
    for (let done = 0; done < 3; done++) {
      const got = await answer(history(done));
      expect(got).toEqual({
        stop: 'tool_use',
        input: { command: `echo step-${done + 1}`, description: `Print step ${done + 1}` },
        text: `MOCK-STEP-${done + 1}: ${done + 1}/3`,
      });
    }
    expect(mock.requests.map((r) => r.behaviour)).toEqual(['toolsteps', 'toolsteps', 'toolsteps']);
    expect(mock.requests[2]).toMatchObject({ turnText: 'please TOOLSTEPS-3 now', turnToolResults: 2, toolCall: { id: 'toolu_mock_3', name: 'Bash' } });
    expect(await answer(history(3))).toEqual({ stop: 'end_turn', input: null, text: 'MOCK-STEPS-DONE: 3 steps' });
    // Beyond 300 it is no tool word at all.
    expect((await answer(turn('TOOLSTEPS-301'))).text).toBe('MOCK-REPLY-5: you said "TOOLSTEPS-301"');
  });

  it('TOOLMIX-<x> calls Bash, Write and Edit of one file in turn, then MOCK-MIX-DONE', async () => {
    const calls: { name: string; input: Record<string, unknown> }[] = [];
    const messages: unknown[] = [{ role: 'user', content: 'TOOLMIX-m1' }];
    for (let i = 0; i < 4; i++) {
      const { events } = await readEvents(await postJson(`${mock.url}/v1/messages`, turn('', { messages }), HEADERS));
      const start = events.filter((e) => e.event === 'content_block_start')[1]?.data.content_block;
      if (!start) {
        expect(
          events
            .filter((e) => e.event === 'content_block_delta')
            .map((e) => e.data.delta.text)
            .join(''),
        ).toBe('MOCK-MIX-DONE: mix-m1');
        break;
      }
      const input = JSON.parse(events.find((e) => e.event === 'content_block_delta' && e.data.index === 1)?.data.delta.partial_json);
      calls.push({ name: start.name, input });
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: start.id, name: start.name, input }] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: start.id, content: 'ok', is_error: false }] });
    }
    expect(calls).toEqual([
      { name: 'Bash', input: { command: 'echo mix-m1', description: 'Print mix-m1' } },
      { name: 'Write', input: { file_path: 'mix-m1.txt', content: 'old line\n' } },
      { name: 'Edit', input: { file_path: 'mix-m1.txt', old_string: 'old line', new_string: 'new line' } },
    ]);
    expect(mock.requests.map((r) => r.behaviour)).toEqual(['toolmix', 'toolmix', 'toolmix', 'toolmix']);
  });

  it('waitForRequest rejects after its timeout', async () => {
    await expect(mock.waitForRequest((r) => r.kind === 'title', 200)).rejects.toThrow(/no matching mock request/);
  });
});
