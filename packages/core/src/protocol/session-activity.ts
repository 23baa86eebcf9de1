import { z } from 'zod';

/**
 * Live progress of a turn (`activity` event): what the CLI's native journal recorded while the turn
 * runs. Display only: it never changes a queue outcome. Every item names the journal record it rests
 * on (`source`) and has a `ref` that is stable for the session (Claude: the tool_use id, or the
 * assistant record's uuid for text; Codex: the call_id, or the item id), so a replay after an agent
 * restart or a reconnect updates the same row instead of adding one.
 *
 * Texts are bounded here; the agent cuts them (never the hub), so a cut is visible (`…`).
 */
export const ACTIVITY_KINDS = ['command', 'edit', 'write', 'read', 'search', 'question', 'tool', 'text'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const ACTIVITY_LIMITS = {
  subject: 2_000,
  outputHead: 2_000,
  diff: 8_000,
  text: 2_000,
  items: 500,
} as const;

export const zActivityItem = z.object({
  ref: z.string().min(1).max(200),
  /** The journal record the item rests on: its id (Claude uuid, Codex call_id / item id) and byte offset. */
  source: z.object({ recordId: z.string().min(1).max(200), offset: z.number().int().nonnegative() }),
  /** The turn it belongs to: Claude the prompt record's uuid, Codex the turn id (what `turn_accepted` carried). */
  nativeTurnId: z.string().min(1).max(200).optional(),
  kind: z.enum(ACTIVITY_KINDS),
  /** The CLI's own tool name (`Bash`, `Edit`, `exec_command`, …); absent for text. */
  toolName: z.string().min(1).max(200).optional(),
  /** What the tool works on: the command line, the file path, the search pattern. */
  subject: z.string().max(ACTIVITY_LIMITS.subject).optional(),
  status: z.enum(['running', 'ok', 'error']),
  exitCode: z.number().int().nullable().optional(),
  /** The first lines of the tool's output (commands), bounded. */
  outputHead: z.string().max(ACTIVITY_LIMITS.outputHead).optional(),
  /** A file change: lines added / removed and a short unified diff (bounded). */
  diff: z
    .object({
      added: z.number().int().nonnegative(),
      removed: z.number().int().nonnegative(),
      text: z.string().max(ACTIVITY_LIMITS.diff),
    })
    .optional(),
  /** Assistant text written between tool calls (kind `text`), bounded. */
  text: z.string().max(ACTIVITY_LIMITS.text).optional(),
  /** When the journal says it started / ended (ms since the epoch; the record's own timestamp where it has one). */
  startedAt: z.number().int().nonnegative(),
  endedAt: z.number().int().nonnegative().optional(),
});

/** Context-window use as the journal states it (Claude: the last response's input tokens; Codex: token_count). */
export const zContextUse = z.object({
  usedTokens: z.number().int().nonnegative(),
  /** The model's window: Codex states it (`model_context_window`); for Claude it is known only from the model name. */
  windowTokens: z.number().int().positive().optional(),
  /** Compactions recorded in this journal so far (Claude `compact_boundary`, Codex `compacted`). */
  compactions: z.number().int().nonnegative(),
  /** Where the window figure comes from: `journal` (stated by the CLI) or `model` (Bria's table by model name). */
  windowSource: z.enum(['journal', 'model']).optional(),
});

export const zActivity = z.object({
  items: z.array(zActivityItem).max(ACTIVITY_LIMITS.items),
  context: zContextUse.optional(),
});
export type ActivityItem = z.infer<typeof zActivityItem>;
export type ActivityPayload = z.infer<typeof zActivity>;
export type ContextUse = z.infer<typeof zContextUse>;

/** Cuts a text to `max` characters, marking the cut with `…`. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
