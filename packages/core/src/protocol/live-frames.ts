import { z } from 'zod';

/**
 * Frames that show a running turn as it happens (issue 31). Unlike events they are ephemeral: never
 * written to the agent's ledger, never acknowledged, never stored by the hub. A lost one is replaced
 * by the next; the journal's final stays the answer (docs/architecture.md, "Drafts and the terminal").
 */

/** Hub features a `welcome` may list; the agent sends a frame of a feature only to a hub that lists it. */
export const HUB_FEATURES = ['draft', 'pane'] as const;
export type HubFeature = (typeof HUB_FEATURES)[number];

/** The most of a draft an agent keeps (the end of a longer one); the screen it is read from holds less. */
export const DRAFT_MAX_CHARS = 16_000;
/** A session's drafts are at least this far apart (≤ 5 a second). */
export const DRAFT_MIN_INTERVAL_MS = 200;

/**
 * The answer being written for a turn, as the CLI draws it. Only the changed end travels: the receiver
 * keeps the first `base` characters of the turn's previous draft (version `v - 1`) and appends `tail`.
 * `base` 0 starts over (a new turn, a new connection); a frame that does not follow the receiver's
 * version with `base` > 0 is dropped until the next `base` 0.
 */
export const zDraft = z.object({
  type: z.literal('draft'),
  sessionId: z.uuid(),
  generation: z.number().int().nonnegative(),
  /** The message whose turn is running (the `deliver` command's message id). */
  messageId: z.uuid(),
  v: z.number().int().positive(),
  base: z.number().int().nonnegative().max(DRAFT_MAX_CHARS),
  tail: z.string().max(DRAFT_MAX_CHARS),
});
export type Draft = z.infer<typeof zDraft>;

/** Applies a draft frame to the text kept for the turn; null when it cannot follow (drop it). */
export function applyDraft(prev: { messageId: string; v: number; text: string } | null, d: Draft): string | null {
  if (d.base === 0) return d.tail.slice(-DRAFT_MAX_CHARS);
  if (!prev || prev.messageId !== d.messageId || d.v !== prev.v + 1 || d.base > prev.text.length) return null;
  return (prev.text.slice(0, d.base) + d.tail).slice(-DRAFT_MAX_CHARS);
}

/** The frame that turns `prev` into `next` (same turn): the common start kept, the rest sent. */
export function draftDelta(prev: string | null, next: string): { base: number; tail: string } {
  if (prev === null) return { base: 0, tail: next };
  let i = 0;
  const n = Math.min(prev.length, next.length);
  while (i < n && prev.charCodeAt(i) === next.charCodeAt(i)) i++;
  // Never split a surrogate pair: the receiver's text must stay valid UTF-16.
  if (i > 0 && i < next.length && /[\uDC00-\uDFFF]/.test(next[i]!)) i--;
  return { base: i, tail: next.slice(i) };
}

/** The agent capability (hello) for `terminal` frames: only such an agent is sent one. */
export const TERMINAL_CAPABILITY = 'terminal';
/** A viewer is gone when its hub has not renewed `open` for this long: the agent stops following. */
export const TERMINAL_IDLE_MS = 30_000;
/** Typed keys per `input` frame. */
export const TERMINAL_INPUT_MAX = 4_096;
/** Pane output per frame; more waiting than `TERMINAL_BACKLOG_MAX` is dropped for a new snapshot. */
export const PANE_CHUNK_MAX = 64 * 1024;
export const TERMINAL_BACKLOG_MAX = 512 * 1024;

/**
 * Hub → agent: a signed-in dashboard user watches the session's pane (`open`, renewed while they
 * do), or typed into it (`input`, after the dashboard's checks: the switch, no open dialog).
 */
export const zTerminal = z.object({
  type: z.literal('terminal'),
  sessionId: z.uuid(),
  op: z.enum(['open', 'input']),
  data: z.string().max(TERMINAL_INPUT_MAX).optional(),
});
export type Terminal = z.infer<typeof zTerminal>;

/**
 * Agent → hub: the pane as drawn. `snapshot` is the whole screen with its colours (capture-pane -e)
 * and the pane's size and cursor; `output` is what tmux pushed after it, in order (`seq`).
 */
export const zPane = z.object({
  type: z.literal('pane'),
  sessionId: z.uuid(),
  seq: z.number().int().nonnegative(),
  kind: z.enum(['snapshot', 'output']),
  data: z.string().max(PANE_CHUNK_MAX),
  cols: z.number().int().positive().max(1000).optional(),
  rows: z.number().int().positive().max(1000).optional(),
  cursorX: z.number().int().nonnegative().optional(),
  cursorY: z.number().int().nonnegative().optional(),
});
export type Pane = z.infer<typeof zPane>;
