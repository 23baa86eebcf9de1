import { estimateTokens } from './behaviour.ts';
import { answerPlan, type Classified, type Exchange, type MockApi, startMockServer } from './http-server.ts';
import type { Plan } from './plan.ts';
import { asRecord, header, lastFunctionOutput, lastUserBlocks, lastUserImages, lastUserText, turnPrompt } from './read-body.ts';
import type { MockServer, MockServerOptions, MockToolCall } from './types.ts';

function isTitleRequest(body: Record<string, unknown>): boolean {
  const format = asRecord(asRecord(body.text)?.format);
  if (format?.type !== 'json_schema') return false;
  const props = asRecord(asRecord(format.schema)?.properties);
  return props !== null && 'title' in props;
}

function classify(method: string, pathname: string, headers: Parameters<MockApi['classify']>[2], raw: unknown): Classified {
  const body = asRecord(raw);
  const isResponses = method === 'POST' && pathname === '/v1/responses';
  const input = Array.isArray(body?.input) ? (body.input as unknown[]) : null;
  const inputText = typeof body?.input === 'string' ? body.input : null;
  const prompt = input ? turnPrompt(input, 'input_text') : null;
  return {
    kind: !isResponses || body === null ? 'other' : isTitleRequest(body) ? 'title' : 'turn',
    sessionId: header(headers, 'session-id') ?? header(headers, 'thread-id'),
    userText: input ? lastUserText(input, 'input_text') : inputText,
    behaviourText: input ? (lastUserBlocks(input, 'input_text')?.at(-1) ?? null) : null,
    toolResult: input ? lastFunctionOutput(input) : null,
    images: input ? lastUserImages(input) : [],
    turnText: prompt?.text ?? null,
    turnToolResults: prompt?.toolResults ?? 0,
    messageCount: input ? input.length : inputText !== null ? 1 : null,
    model: typeof body?.model === 'string' ? body.model : null,
    stream: typeof body?.stream === 'boolean' ? body.stream : null,
  };
}

function apiError(x: Exchange, status: number, type: string, message: string): void {
  x.sendJson(status, { error: { message, type, param: null, code: null } });
}

function messageItem(x: Exchange, text: string, done: boolean) {
  return {
    id: `msg_mock_${x.entry.id}`,
    type: 'message',
    status: done ? 'completed' : 'in_progress',
    role: 'assistant',
    content: done ? [{ type: 'output_text', annotations: [], logprobs: [], text }] : [],
  };
}

/** The wire shape Codex 0.171 runs a tool from (docs/cli-facts.md): arguments as a JSON string. */
function functionCallItem(x: Exchange, tool: MockToolCall, done: boolean) {
  return {
    id: `fc_mock_${x.entry.id}`,
    type: 'function_call',
    status: done ? 'completed' : 'in_progress',
    call_id: tool.id,
    name: tool.name,
    arguments: done ? JSON.stringify(tool.input) : '',
  };
}

function responseObject(x: Exchange, status: 'in_progress' | 'completed', text: string | null, tool?: MockToolCall) {
  const input = estimateTokens(x.bodyChars);
  const output = text === null ? 0 : estimateTokens(text.length);
  return {
    id: `resp_mock_${x.entry.id}`,
    object: 'response',
    created_at: Math.floor(Date.parse(x.entry.time) / 1000),
    status,
    error: null,
    incomplete_details: null,
    model: x.entry.model ?? 'mock-model',
    output: text === null ? [] : [messageItem(x, text, true), ...(tool ? [functionCallItem(x, tool, true)] : [])],
    parallel_tool_calls: true,
    usage:
      text === null
        ? null
        : {
            input_tokens: input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: input + output,
          },
  };
}

async function streamText(x: Exchange, plan: Extract<Plan, { type: 'text' }>): Promise<void> {
  let seq = 0;
  const send = (type: string, fields: Record<string, unknown>) => x.sse(type, { type, sequence_number: seq++, ...fields });
  const itemId = `msg_mock_${x.entry.id}`;
  const at = { item_id: itemId, output_index: 0, content_index: 0 };
  x.startSse({ 'openai-processing-ms': '1' });
  send('response.created', { response: responseObject(x, 'in_progress', null) });
  send('response.in_progress', { response: responseObject(x, 'in_progress', null) });
  send('response.output_item.added', { output_index: 0, item: messageItem(x, '', false) });
  send('response.content_part.added', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
  let text = '';
  for (const step of plan.steps) {
    if (step.delayMs > 0 && !(await x.sleep(step.delayMs))) return;
    text += step.text;
    send('response.output_text.delta', { ...at, delta: step.text, logprobs: [] });
  }
  if (plan.stall) return x.untilClosed();
  send('response.output_text.done', { ...at, text, logprobs: [] });
  send('response.content_part.done', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text } });
  send('response.output_item.done', { output_index: 0, item: messageItem(x, text, true) });
  if (plan.tool) {
    const item = functionCallItem(x, plan.tool, true);
    send('response.output_item.added', { output_index: 1, item: functionCallItem(x, plan.tool, false) });
    send('response.function_call_arguments.delta', { item_id: item.id, output_index: 1, delta: item.arguments });
    send('response.function_call_arguments.done', { item_id: item.id, output_index: 1, arguments: item.arguments });
    send('response.output_item.done', { output_index: 1, item });
  }
  send('response.completed', { response: responseObject(x, 'completed', text, plan.tool) });
  x.end();
}

/**
 * ChatGPT's usage-limit refusal as Codex reads it: 429 with an `error` of type
 * `usage_limit_reached` (`resets_at` in seconds since the epoch, `resets_in_seconds`) and the
 * `x-codex-*` rate-limit headers of the 5-hour (primary, full) and weekly (secondary) windows.
 */
function limitReached(x: Exchange, resetsAt: number): void {
  const now = Math.floor(Date.now() / 1000);
  x.sendJson(
    429,
    {
      error: {
        type: 'usage_limit_reached',
        message: 'The usage limit has been reached',
        plan_type: 'plus',
        resets_at: resetsAt,
        resets_in_seconds: Math.max(0, resetsAt - now),
      },
    },
    {
      'x-codex-primary-used-percent': '100',
      'x-codex-primary-window-minutes': '300',
      'x-codex-primary-reset-at': String(resetsAt),
      'x-codex-secondary-used-percent': '40',
      'x-codex-secondary-window-minutes': '10080',
      'x-codex-secondary-reset-at': String(now + 7 * 86_400),
    },
  );
}

function answerResponses(x: Exchange, plan: Plan): Promise<void> {
  return answerPlan(x, plan, {
    fail: (status) => apiError(x, status, status === 400 ? 'invalid_request_error' : 'server_error', `mock fail${status}`),
    limit: (resetsAt) => limitReached(x, resetsAt),
    stream: (p) => streamText(x, p),
    reply: (p) => x.sendJson(200, responseObject(x, 'completed', p.steps.map((s) => s.text).join(''), p.tool)),
  });
}

const openaiApi: MockApi = {
  classify,
  twoBlocks: false,
  tools: { behaviours: ['toolshell', 'toolask', 'toolfail', 'toolwait', 'toolaskwait', 'toolsteps', 'toolmix'], idPrefix: 'call_mock_', flavour: 'openai' },
  async respond(x, plan) {
    if (x.method === 'HEAD' || (x.method === 'GET' && x.pathname === '/')) return x.sendJson(200, {});
    if (plan) return answerResponses(x, plan);
    if (x.method === 'POST' && x.pathname === '/v1/responses') {
      return apiError(x, 400, 'invalid_request_error', 'mock: body must be JSON with input');
    }
    apiError(x, 404, 'invalid_request_error', `mock: no route ${x.method} ${x.pathname}`);
  },
};

/** OpenAI Responses API look-alike on 127.0.0.1 for driving the real Codex CLI. */
export function startOpenAIMock(opts: MockServerOptions = {}): Promise<MockServer> {
  return startMockServer(openaiApi, opts);
}
