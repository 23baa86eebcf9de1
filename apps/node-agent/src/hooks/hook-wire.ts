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
 * request ended otherwise), `go` (the tool call may go on).
 */
export const zPermissionRequestFrame = z.object({
  type: z.literal('permission_request'),
  sessionId: z.string().min(1),
  /** Which CLI ran the hook (its last argument); an older hook sent none: Claude. */
  executor: z.enum(['claude', 'codex']).catch('claude'),
  hookPid: z.number().nullable().catch(null),
  /** A key that is not a safe id is not used for reconnection (the request is new). */
  hookKey: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/)
    .optional()
    .catch(undefined),
  /** The hook's whole stdin JSON, as the CLI sent it. */
  request: z.record(z.string(), z.unknown()),
});
export type PermissionRequestFrame = z.infer<typeof zPermissionRequestFrame>;
export const zToolStartFrame = z.object({
  type: z.literal('tool_start'),
  sessionId: z.string().min(1),
  toolUseId: z.string().nullable().catch(null),
  hookPid: z.unknown().optional(),
});
export const zDeliveredFrame = z.object({ type: z.literal('delivered'), requestId: z.unknown().optional() });

export const zHookToAgentFrame = z.discriminatedUnion('type', [zPermissionRequestFrame, zToolStartFrame, zDeliveredFrame]);
export type HookToAgentFrame = z.infer<typeof zHookToAgentFrame>;

/** How a request ended, as an `end` frame says it (`released`: the user will answer at the computer). */
export const zEndFrame = z.object({ type: z.literal('end'), requestId: z.string(), state: z.string() });
export const zAgentToHookFrame = z.discriminatedUnion('type', [
  z.object({ type: z.literal('answer'), requestId: z.string(), output: z.record(z.string(), z.unknown()) }),
  zEndFrame,
  z.object({ type: z.literal('go') }),
]);
export type AgentToHookFrame = z.infer<typeof zAgentToHookFrame>;

/**
 * One line from a hook: the frame; `skip` for a line that is not JSON or names no frame we know
 * (ignored, as before); `bad` for a known frame with a broken body (the connection is dropped).
 */
export function parseHookLine(line: string): HookToAgentFrame | 'skip' | 'bad' {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return 'skip';
  }
  const type = (raw as { type?: unknown } | null)?.type;
  if (type !== 'permission_request' && type !== 'tool_start' && type !== 'delivered') return 'skip';
  const r = zHookToAgentFrame.safeParse(raw);
  return r.success ? r.data : 'bad';
}

/** One line to a hook. */
export function hookLine(frame: AgentToHookFrame): string {
  return `${JSON.stringify(frame)}\n`;
}
