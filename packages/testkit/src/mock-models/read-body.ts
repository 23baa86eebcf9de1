import type { IncomingHttpHeaders } from 'node:http';
import type { MockToolResult } from './types.ts';

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

/** The `tool_result` of the latest user message (Anthropic Messages), or null when it has none. */
export function lastToolResult(items: unknown[]): MockToolResult | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = asRecord(items[i]);
    if (item?.role !== 'user') continue;
    if (!Array.isArray(item.content)) return null;
    for (const part of item.content) {
      const p = asRecord(part);
      if (p?.type !== 'tool_result') continue;
      return {
        toolUseId: typeof p.tool_use_id === 'string' ? p.tool_use_id : null,
        isError: p.is_error === true,
        content: partTexts(p.content, 'text').join('\n'),
      };
    }
    return null;
  }
  return null;
}
