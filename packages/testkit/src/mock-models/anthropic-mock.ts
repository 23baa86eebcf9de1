import { estimateTokens } from './behaviour.ts';
import { answerPlan, type Classified, type Exchange, type MockApi, startMockServer } from './http-server.ts';
import { blockTexts, type Plan } from './plan.ts';
import { asRecord, header, lastToolResult, lastUserBlocks, lastUserImages, lastUserText, turnPrompt } from './read-body.ts';
import type { MockServer, MockServerOptions } from './types.ts';

function isTitleRequest(body: Record<string, unknown>): boolean {
  const format = asRecord(asRecord(body.output_config)?.format);
  if (format?.type !== 'json_schema') return false;
  const props = asRecord(asRecord(format.schema)?.properties);
  return props !== null && 'title' in props;
}

function classify(method: string, pathname: string, headers: Parameters<MockApi['classify']>[2], raw: unknown): Classified {
  const body = asRecord(raw);
  const isMessages = method === 'POST' && pathname === '/v1/messages';
  const messages = Array.isArray(body?.messages) ? (body.messages as unknown[]) : null;
  const prompt = messages ? turnPrompt(messages, 'text') : null;
  return {
    kind: !isMessages || body === null ? 'other' : isTitleRequest(body) ? 'title' : 'turn',
    sessionId: header(headers, 'x-claude-code-session-id'),
    userText: messages ? lastUserText(messages, 'text') : null,
    behaviourText: messages ? (lastUserBlocks(messages, 'text')?.at(-1) ?? null) : null,
    toolResult: messages ? lastToolResult(messages) : null,
    images: messages ? lastUserImages(messages) : [],
    turnText: prompt?.text ?? null,
    turnToolResults: prompt?.toolResults ?? 0,
    messageCount: messages ? messages.length : null,
    model: typeof body?.model === 'string' ? body.model : null,
    stream: typeof body?.stream === 'boolean' ? body.stream : null,
  };
}

function apiError(x: Exchange, status: number, type: string, message: string): void {
  x.sendJson(status, { type: 'error', error: { type, message }, request_id: `req_mock_${x.entry.id}` });
}

function usage(x: Exchange, outputChars: number) {
  return {
    input_tokens: estimateTokens(x.bodyChars),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: estimateTokens(outputChars),
  };
}

async function streamText(x: Exchange, plan: Extract<Plan, { type: 'text' }>): Promise<void> {
  const id = `msg_mock_${x.entry.id}`;
  x.startSse();
  x.sse('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: x.entry.model ?? 'mock-model',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage(x, 0), output_tokens: 1 },
    },
  });
  let block = -1;
  let chars = 0;
  for (const step of plan.steps) {
    if (step.delayMs > 0 && !(await x.sleep(step.delayMs))) return;
    if (step.block !== block) {
      if (block >= 0) x.sse('content_block_stop', { type: 'content_block_stop', index: block });
      x.sse('content_block_start', { type: 'content_block_start', index: step.block, content_block: { type: 'text', text: '' } });
      if (block < 0) x.sse('ping', { type: 'ping' });
      block = step.block;
    }
    chars += step.text.length;
    x.sse('content_block_delta', { type: 'content_block_delta', index: block, delta: { type: 'text_delta', text: step.text } });
  }
  if (plan.stall) return x.untilClosed();
  x.sse('content_block_stop', { type: 'content_block_stop', index: block });
  if (plan.tool) {
    // The wire shape Claude Code 2.1.197 runs a tool from (docs/cli-facts.md, "What the mock model servers must send"): an empty input
    // at the block's start, the whole input as one JSON delta.
    const index = block + 1;
    x.sse('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: plan.tool.id, name: plan.tool.name, input: {} },
    });
    const json = JSON.stringify(plan.tool.input);
    chars += json.length;
    x.sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json } });
    x.sse('content_block_stop', { type: 'content_block_stop', index });
  }
  x.sse('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: plan.tool ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: estimateTokens(chars) },
  });
  x.sse('message_stop', { type: 'message_stop' });
  x.end();
}

/**
 * The API's usage-limit refusal: 429 `rate_limit_error` with the unified rate-limit headers of a
 * subscription's 5-hour window, rejected, and `x-should-retry: false` (so the CLI gives up at once
 * instead of retrying). Claude Code 2.1.197 with an API key journals it as an API error record
 * (`error: "rate_limit"`, `apiErrorStatus: 429`) without the reset time (docs/cli-facts.md).
 */
function limitReached(x: Exchange, resetsAt: number): void {
  x.sendJson(
    429,
    {
      type: 'error',
      error: { type: 'rate_limit_error', message: "This request would exceed your account's rate limit. Please try again later." },
      request_id: `req_mock_${x.entry.id}`,
    },
    {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(resetsAt),
      'anthropic-ratelimit-unified-5h-status': 'rejected',
      'anthropic-ratelimit-unified-5h-reset': String(resetsAt),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'x-should-retry': 'false',
    },
  );
}

function answerMessages(x: Exchange, plan: Plan): Promise<void> {
  return answerPlan(x, plan, {
    fail: (status) => apiError(x, status, status === 400 ? 'invalid_request_error' : 'api_error', `mock fail${status}`),
    limit: (resetsAt) => limitReached(x, resetsAt),
    stream: (p) => streamText(x, p),
    reply: (p) => replyJson(x, p),
  });
}

function replyJson(x: Exchange, plan: Extract<Plan, { type: 'text' }>): void {
  const texts = blockTexts(plan.steps);
  x.sendJson(200, {
    id: `msg_mock_${x.entry.id}`,
    type: 'message',
    role: 'assistant',
    model: x.entry.model ?? 'mock-model',
    content: [...texts.map((text) => ({ type: 'text', text })), ...(plan.tool ? [{ type: 'tool_use', ...plan.tool }] : [])],
    stop_reason: plan.tool ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: usage(x, texts.join('').length),
  });
}

const anthropicApi: MockApi = {
  classify,
  twoBlocks: true,
  tools: {
    behaviours: ['toolbash', 'toolwrite', 'tooledit', 'toolask', 'toolaskmulti', 'toolfail', 'toolwait', 'toolaskwait', 'toolsteps', 'toolmix'],
    idPrefix: 'toolu_mock_',
    flavour: 'anthropic',
  },
  async respond(x, plan) {
    if (x.method === 'HEAD' || (x.method === 'GET' && x.pathname === '/')) return x.sendJson(200, {});
    if (plan) return answerMessages(x, plan);
    if (x.method === 'POST' && x.pathname === '/v1/messages/count_tokens') {
      return x.sendJson(200, { input_tokens: estimateTokens(x.bodyChars) });
    }
    if (x.method === 'POST' && x.pathname === '/v1/messages') {
      return apiError(x, 400, 'invalid_request_error', 'mock: body must be JSON with messages');
    }
    apiError(x, 404, 'not_found_error', `mock: no route ${x.method} ${x.pathname}`);
  },
};

/** Anthropic Messages API look-alike on 127.0.0.1 for driving the real Claude Code CLI. */
export function startAnthropicMock(opts: MockServerOptions = {}): Promise<MockServer> {
  return startMockServer(anthropicApi, opts);
}
