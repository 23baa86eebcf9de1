import { z } from 'zod';
import { type Db, updateChat } from '@bria/core/services';
import type { PromptDraft } from './prompt-view.ts';

/**
 * What the chat keeps about a prompt between updates (`TelegramChat.flow`, durable across bot
 * restarts): that the next text message is the deny reason or a question's answer (`draft.typing`),
 * and answers typed for questions of a request that has more to answer. Choices made with buttons
 * travel in the buttons themselves (prompt-callback.ts). The flow the chat had before (a /new step,
 * a resume's way back) is kept in `prev` and put back when the prompt no longer needs the chat.
 */
export interface PromptFlow {
  kind: 'prompt';
  promptId: string;
  messageId: number;
  draft: PromptDraft;
  prev?: unknown;
}

const zFlow = z.object({
  kind: z.literal('prompt'),
  promptId: z.string(),
  messageId: z.number().int(),
  draft: z.object({
    q: z.number().int(),
    picks: z.array(z.number().int()),
    texts: z.record(z.string(), z.string()),
    typing: z.enum(['reason', 'answer']).nullable(),
  }),
  prev: z.unknown().optional(),
});

export function readPromptFlow(flow: unknown, promptId?: string): PromptFlow | null {
  const r = zFlow.safeParse(flow);
  return r.success && (promptId === undefined || r.data.promptId === promptId) ? (r.data as PromptFlow) : null;
}

/** Starts or updates the prompt's state in the chat; another prompt's state gives way (its `prev` is kept). */
export async function savePromptFlow(db: Db, chat: { chatId: bigint; flow: unknown }, f: Omit<PromptFlow, 'kind' | 'prev'>): Promise<PromptFlow> {
  const current = chat.flow;
  const mine = readPromptFlow(current);
  const prev = mine ? mine.prev : current;
  const next: PromptFlow = { kind: 'prompt', ...f, ...(prev !== undefined && prev !== null ? { prev } : {}) };
  await updateChat(db, chat.chatId, { flow: next as unknown as object });
  chat.flow = next;
  return next;
}

/** The prompt needs nothing more from the chat: the earlier flow comes back. No-op for another prompt's flow. */
export async function endPromptFlow(db: Db, chat: { chatId: bigint; flow: unknown }, promptId: string): Promise<void> {
  const mine = readPromptFlow(chat.flow, promptId);
  if (!mine) return;
  const prev = mine.prev !== undefined && mine.prev !== null ? (mine.prev as object) : null;
  await updateChat(db, chat.chatId, { flow: prev });
  chat.flow = prev;
}
