import { z } from 'zod';

/**
 * The frames on the agent's hook socket: one JSON object per line. The hook program
 * (`permission-hook.mjs`) is plain JavaScript that starts once per request and must start fast, so it
 * cannot load this module; it writes and reads exactly these shapes, and `hook-wire.test.ts` runs the
 * real program against them.
 *
 * Hook → agent: `permission_request` (the CLI's hook JSON, once per connection; `hookKey` is the same on
 * every reconnection of one hook), `tool_start` (Claude's PreToolUse: a tool call begins), `delivered`
 * (the hook printed the answer). Agent → hook: `answer` (the hook's stdout), `end` (print nothing: the
 * request ended otherwise), `go` (the tool call may go on), `refused` (print nothing: the connection
 * was refused, with the reason; the connection then ends).
 */

/** A Bria session id as the settings writer puts it into the hook command. */
const zSessionId = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/);

/**
 * The longest line the agent reads from a hook (UTF-8 bytes, newline excluded). The hook program
 * clips the CLI's input to `HOOK_REQUEST_BUDGET` before it sends it (long strings cut with a
 * marker; permission-hook.mjs), so a real request stays well below; real inputs measured: a Bash
 * command < 2 KB, an Edit of a large function ~20 KB, a Write carries the whole file (a 5 MB `.env`
 * → a 5 MB line before clipping). docs/hooks-channel.md, "Bounds".
 */
export const MAX_HOOK_LINE_BYTES = 256 * 1024;
/** What the hook program sends at most (bytes of its one JSON line): `MAX_HOOK_LINE_BYTES` leaves room. */
export const HOOK_REQUEST_BUDGET = 192 * 1024;

export const zPermissionRequestFrame = z.object({
  type: z.literal('permission_request'),
  sessionId: zSessionId,
  /** Which CLI ran the hook (its last argument); an older hook sent none: Claude. */
  executor: z.enum(['claude', 'codex']).catch('claude'),
  hookPid: z.number().int().positive().nullable().catch(null),
  /** A key that is not a safe id is not used for reconnection (the request is new). */
  hookKey: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/)
    .optional()
    .catch(undefined),
  /** The hook's stdin JSON, as the CLI sent it (long strings clipped by the hook program). */
  request: z.record(z.string(), z.unknown()),
});
export type PermissionRequestFrame = z.infer<typeof zPermissionRequestFrame>;
export const zToolStartFrame = z.object({
  type: z.literal('tool_start'),
  sessionId: zSessionId,
  toolUseId: z.string().max(200).nullable().catch(null),
  hookPid: z.number().int().positive().nullable().optional().catch(null),
});
export const zDeliveredFrame = z.object({ type: z.literal('delivered'), requestId: z.string().max(100).optional().catch(undefined) });

export const zHookToAgentFrame = z.discriminatedUnion('type', [zPermissionRequestFrame, zToolStartFrame, zDeliveredFrame]);
export type HookToAgentFrame = z.infer<typeof zHookToAgentFrame>;

/**
 * Why the agent refused a hook connection (sent in a `refused` frame, then the connection ends;
 * the hook prints nothing, so the CLI keeps its own dialog). Nothing of a refused line is stored.
 */
export const HOOK_REFUSALS = [
  'line_too_long',
  'not_json',
  'unknown_frame',
  'bad_frame',
  'out_of_order',
  'unknown_session',
  'peer_unverified',
  'peer_outside_session',
  'channel_closing',
] as const;
export type HookRefusal = (typeof HOOK_REFUSALS)[number];

/** How a request ended, as an `end` frame says it (`released`: the user will answer at the computer). */
export const zEndFrame = z.object({ type: z.literal('end'), requestId: z.string(), state: z.string() });
export const zAgentToHookFrame = z.discriminatedUnion('type', [
  z.object({ type: z.literal('answer'), requestId: z.string(), output: z.record(z.string(), z.unknown()) }),
  zEndFrame,
  z.object({ type: z.literal('go') }),
  z.object({ type: z.literal('refused'), reason: z.enum(HOOK_REFUSALS) }),
]);
export type AgentToHookFrame = z.infer<typeof zAgentToHookFrame>;

export type ParsedHookLine = { ok: true; frame: HookToAgentFrame } | { ok: false; reason: HookRefusal };

/** One line from a hook: its frame, or why it is refused (not JSON, no frame we know, a broken body). */
export function parseHookLine(line: string): ParsedHookLine {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'not_json' };
  }
  const type = typeof raw === 'object' && raw !== null && 'type' in raw ? raw.type : undefined;
  if (type !== 'permission_request' && type !== 'tool_start' && type !== 'delivered') return { ok: false, reason: 'unknown_frame' };
  const r = zHookToAgentFrame.safeParse(raw);
  return r.success ? { ok: true, frame: r.data } : { ok: false, reason: 'bad_frame' };
}

/** One line to a hook. */
export function hookLine(frame: AgentToHookFrame): string {
  return `${JSON.stringify(frame)}\n`;
}

/**
 * Splits a connection's bytes into lines without ever holding more than `maxBytes` of one line:
 * `push` returns the complete lines, or `too_long` as soon as a line (or the unfinished rest) passes
 * the cap. Pure; the channel feeds it each chunk.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;

  constructor(private readonly maxBytes: number = MAX_HOOK_LINE_BYTES) {}

  get heldBytes(): number {
    return this.held;
  }

  push(chunk: Buffer): string[] | 'too_long' {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      if (this.held + nl - start > this.maxBytes) return this.overflow();
      this.parts.push(chunk.subarray(start, nl));
      lines.push(Buffer.concat(this.parts).toString('utf8'));
      this.parts = [];
      this.held = 0;
      start = nl + 1;
    }
    const rest = chunk.length - start;
    if (this.held + rest > this.maxBytes) return this.overflow();
    if (rest > 0) {
      // A copy: the chunk's memory is not kept alive by a small rest.
      this.parts.push(Buffer.from(chunk.subarray(start)));
      this.held += rest;
    }
    return lines;
  }

  private overflow(): 'too_long' {
    this.parts = [];
    this.held = 0;
    return 'too_long';
  }
}
