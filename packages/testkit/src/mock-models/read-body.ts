import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { MockImage, MockToolResult } from './types.ts';

export function asRecord(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

export function header(headers: IncomingHttpHeaders, name: string): string | null {
  const v = headers[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? null) : null;
}

// Text parts the CLIs add to a user message on their own (reminders, environment context);
// they are not what the person typed, so they neither show in the log nor trigger magic words.
const INJECTED = /^<(system-reminder|environment_context|user_instructions|user_shell_command)>[\s\S]*<\/\1>$/;

function partTexts(content: unknown, textType: string): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const part of content) {
    const p = asRecord(part);
    if (p?.type === textType && typeof p.text === 'string') out.push(p.text);
  }
  return out;
}

/**
 * Text of the latest user message (`role: "user"`; other roles, including the `system` entries
 * Claude sends on resume, are skipped). `textType` is `text` (Anthropic) or `input_text` (OpenAI).
 */
export function lastUserText(items: unknown[], textType: string): string | null {
  return lastUserBlocks(items, textType)?.join('\n') ?? null;
}

/** The text blocks of the latest user message, without the blocks the CLIs inject themselves. */
export function lastUserBlocks(items: unknown[], textType: string): string[] | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = asRecord(items[i]);
    if (item?.role !== 'user') continue;
    if (item.type !== undefined && item.type !== 'message') continue;
    return partTexts(item.content, textType).filter((t) => !INJECTED.test(t.trim()));
  }
  return null;
}

/** The `tool_use` block with this id in the assistant messages before index `before`. */
function toolUseBefore(items: unknown[], before: number, id: string | null): { name: string | null; input: unknown } | null {
  for (let i = before - 1; i >= 0 && id !== null; i--) {
    const item = asRecord(items[i]);
    if (item?.role !== 'assistant' || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      const p = asRecord(part);
      if (p?.type === 'tool_use' && p.id === id) return { name: typeof p.name === 'string' ? p.name : null, input: p.input ?? null };
    }
  }
  return null;
}

/** The `tool_result` of the latest user message (Anthropic Messages), or null when it has none. */
export function lastToolResult(items: unknown[]): MockToolResult | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = asRecord(items[i]);
    if (item?.role !== 'user') continue;
    if (!Array.isArray(item.content)) return null;
    for (const part of item.content) {
      const p = asRecord(part);
      if (p?.type !== 'tool_result') continue;
      const toolUseId = typeof p.tool_use_id === 'string' ? p.tool_use_id : null;
      const call = toolUseBefore(items, i, toolUseId);
      return {
        toolUseId,
        isError: p.is_error === true,
        content: partTexts(p.content, 'text').join('\n'),
        toolName: call?.name ?? null,
        toolInput: call?.input ?? null,
      };
    }
    return null;
  }
  return null;
}

/**
 * The `function_call_output` that is the last input item (OpenAI Responses: the request after a
 * tool call), with the `function_call` it answers; null when the last item is anything else.
 */
export function lastFunctionOutput(items: unknown[]): MockToolResult | null {
  const last = asRecord(items.at(-1));
  if (last?.type !== 'function_call_output') return null;
  const callId = typeof last.call_id === 'string' ? last.call_id : null;
  const output = typeof last.output === 'string' ? last.output : partTexts(last.output, 'input_text').join('\n');
  let toolName: string | null = null;
  let toolInput: unknown = null;
  for (const raw of items) {
    const item = asRecord(raw);
    if (item?.type !== 'function_call' || item.call_id !== callId) continue;
    toolName = typeof item.name === 'string' ? item.name : null;
    try {
      toolInput = typeof item.arguments === 'string' ? JSON.parse(item.arguments) : null;
    } catch {
      toolInput = item.arguments;
    }
  }
  return { toolUseId: callId, isError: false, content: output, toolName, toolInput };
}

/**
 * The prompt of the running turn and the tool results that followed it: the latest user message
 * with typed text (neither injected blocks nor a tool result), and the number of tool results after
 * it (Anthropic `tool_result` parts of later user messages, OpenAI `function_call_output` items).
 */
export function turnPrompt(items: unknown[], textType: string): { text: string; toolResults: number } | null {
  let toolResults = 0;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = asRecord(items[i]);
    if (item?.type === 'function_call_output') toolResults++;
    if (item?.role !== 'user' || (item.type !== undefined && item.type !== 'message')) continue;
    const parts = Array.isArray(item.content) ? item.content.map(asRecord) : [];
    const results = parts.filter((p) => p?.type === 'tool_result').length;
    toolResults += results;
    const typed = partTexts(item.content, textType).filter((t) => !INJECTED.test(t.trim()));
    if (results === 0 && typed.length > 0) return { text: typed.join('\n'), toolResults };
  }
  return null;
}

function image(mediaType: string, base64: string): MockImage {
  const bytes = Buffer.from(base64, 'base64');
  return { mediaType, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
}

/**
 * The images of the latest user message: Anthropic `image` blocks with a base64 source, OpenAI
 * `input_image` parts with a `data:` URL. Each as its media type, byte count and SHA-256, so the
 * log (which never holds bodies) shows which file arrived as an image.
 */
export function lastUserImages(items: unknown[]): MockImage[] {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = asRecord(items[i]);
    if (item?.role !== 'user') continue;
    if (item.type !== undefined && item.type !== 'message') continue;
    const out: MockImage[] = [];
    for (const part of Array.isArray(item.content) ? item.content : []) {
      const p = asRecord(part);
      const source = asRecord(p?.source);
      if (p?.type === 'image' && source?.type === 'base64' && typeof source.data === 'string')
        out.push(image(typeof source.media_type === 'string' ? source.media_type : '', source.data));
      const url = p?.type === 'input_image' && typeof p.image_url === 'string' ? /^data:([^;,]*);base64,(.*)$/s.exec(p.image_url) : null;
      if (url) out.push(image(url[1]!, url[2]!));
    }
    return out;
  }
  return [];
}
