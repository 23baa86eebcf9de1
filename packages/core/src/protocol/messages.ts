import { z } from 'zod';
import { zDraft, zPane, zTerminal } from './live-frames.ts';

/**
 * The hub ⇄ node agent protocol. Every frame is one JSON object validated on both ends.
 *
 * Delivery rules (both directions survive reconnects without loss or repetition):
 * - Commands (hub → agent) carry a UUID. The agent stores each in its ledger before it acks;
 *   a command id seen before is answered from the ledger, never executed twice. The hub keeps
 *   a command `sent` until acked and re-sends unacked ones after a reconnect.
 * - Events (agent → hub) carry a per-node sequence number. The hub stores an event once by
 *   (node, seq) and acks cumulatively; the agent keeps unacked events on disk and replays
 *   those above the hub's `lastEventSeq` (sent in `welcome`) after a reconnect.
 */
export const PROTOCOL_VERSION = 1;
/**
 * The agent names its protocol on the upgrade request too, so a hub of another protocol refuses it
 * (HTTP 426, `protocol_mismatch`) before a socket opens; a hello with another `protocol` is refused
 * with a `refused` frame (code `protocol`) and close code `protocolMismatch`. Either way the agent
 * says why and waits `PROTOCOL_MISMATCH_DELAY_MS` (protocol/backoff.ts) before it tries again.
 */
export const PROTOCOL_HEADER = 'x-bria-protocol';
/** Largest frame either side accepts; larger frames close the connection (1009). */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** The CLIs Bria runs: the one list every package (agent, hub, services, front ends) uses. */
export const EXECUTORS = ['claude', 'codex'] as const;
export type Executor = (typeof EXECUTORS)[number];
export const zExecutor = z.enum(EXECUTORS);

const zId = z.uuid();
const zSeq = z.number().int().nonnegative();

export const zHello = z.object({
  type: z.literal('hello'),
  protocol: z.literal(PROTOCOL_VERSION),
  agentVersion: z.string().max(64),
  instanceId: z.string().max(64),
  hostname: z.string().max(255),
  executors: z.array(z.object({ executor: zExecutor, available: z.boolean(), version: z.string().max(128).optional() })).max(8),
  /** Highest event seq the agent has written (the hub may ask for a replay). */
  lastEventSeq: zSeq,
  /**
   * Commands added to protocol 1 after its first release that this agent handles (see
   * OPTIONAL_COMMANDS). Additive: an agent from before it sends none, and the hub then sends it
   * none of them (an older agent would refuse the frame as malformed and reconnect).
   */
  capabilities: z.array(z.string().min(1).max(64)).max(64).optional(),
  /**
   * `<executor>:<mode>` permission modes that cannot start on this machine (session-choices.ts:
   * Claude's bypassPermissions for root). Absent from an older agent: nothing known to be unavailable.
   */
  unavailableModes: z.array(z.string().min(1).max(64)).max(16).optional(),
});

export const zWelcome = z.object({
  type: z.literal('welcome'),
  nodeId: zId,
  nodeName: z.string(),
  heartbeatMs: z.number().int().positive(),
  /** Highest event seq the hub has stored from this node: the agent replays everything above it. */
  lastEventSeq: zSeq,
  /** Frames beyond protocol 1's first release this hub accepts (live-frames.ts `HUB_FEATURES`); absent from an older hub. */
  features: z.array(z.string().min(1).max(64)).max(32).optional(),
});

export const zPing = z.object({ type: z.literal('ping'), t: z.number() });
export const zPong = z.object({ type: z.literal('pong'), t: z.number() });

export const zCommandType = z.enum([
  'start_session',
  'resume_session',
  'deliver',
  'interrupt',
  'close_session',
  'attach_session',
  'discover',
  'validate_folder',
  'archive_journal',
  'probe',
  'read_journal',
  'answer_permission',
  'answer_dialog',
  'compact_context',
  'adopt_in_place',
  // Git in a session's folder (protocol/git.ts, docs/worktrees.md).
  'git_worktree_add',
  'git_changes',
  'git_commit',
  'git_push',
  'git_finish',
]);
export type CommandType = z.infer<typeof zCommandType>;

/**
 * Command types an agent may not know: sent only to agents that list them in `hello.capabilities`.
 * A new command type goes here; the agent adds it to its capabilities with its handler.
 */
export const OPTIONAL_COMMANDS = [
  'read_journal',
  'answer_permission',
  'answer_dialog',
  'compact_context',
  'adopt_in_place',
  'git_worktree_add',
  'git_changes',
  'git_commit',
  'git_push',
  'git_finish',
] as const satisfies readonly CommandType[];
export type OptionalCommand = (typeof OPTIONAL_COMMANDS)[number];
/**
 * Capabilities that are not commands. `handoff`: the agent reports processes outside Bria that hold a
 * native session (`discovery_diff` `outside`), refuses to start a second CLI on such a session and
 * takes one over on `resume_session.takeOver` (node-agent `handoff/`). `terminal`: it takes `terminal`
 * frames (protocol/live-frames.ts) and answers with `pane` frames.
 */
export const AGENT_FEATURES = [
  'handoff',
  // Follows a pane for the dashboard's live terminal (protocol/live-frames.ts).
  'terminal',
  // The agent's hooks channel is off, and why (domain/remote-answers.ts): its CLIs keep their own dialogs.
  'remote_answers_off:no_private_short_path',
  'remote_answers_off:folder_not_private',
  'remote_answers_off:listen_failed',
] as const;
export type AgentFeature = (typeof AGENT_FEATURES)[number];

export const zCommand = z.object({
  type: z.literal('command'),
  id: zId,
  command: zCommandType,
  sessionId: zId.optional(),
  /** Observer generation the command belongs to; the agent refuses stale generations. */
  generation: z.number().int().nonnegative().optional(),
  payload: z.record(z.string(), z.unknown()),
  issuedAt: z.number(),
});

export const zCommandAck = z.object({ type: z.literal('command_ack'), id: zId });

export const zEvent = z.object({
  type: z.literal('event'),
  seq: z.number().int().positive(),
  at: z.number(),
  /** e.g. command_result, session_ready, turn_accepted, turn_final, turn_completed, turn_interrupted,
   *  turn_api_error, usage, process_exited, blocked_on_prompt, evidence_unknown, discovery_diff. */
  event: z.string().min(1).max(64),
  commandId: zId.optional(),
  sessionId: zId.optional(),
  generation: z.number().int().nonnegative().optional(),
  payload: z.record(z.string(), z.unknown()),
});

export const zEventAck = z.object({ type: z.literal('event_ack'), upTo: zSeq });

export const zRefusal = z.object({
  type: z.literal('refused'),
  code: z.enum(['bad_token', 'revoked', 'protocol', 'replaced', 'shutting_down']),
  message: z.string(),
  /** Suggested wait before the next attempt. */
  retryAfterMs: z.number().int().nonnegative().optional(),
});

export const zAgentToHub = z.discriminatedUnion('type', [zHello, zPing, zPong, zCommandAck, zEvent, zDraft, zPane]);
export const zHubToAgent = z.discriminatedUnion('type', [zWelcome, zPing, zPong, zCommand, zEventAck, zRefusal, zTerminal]);

export type Hello = z.infer<typeof zHello>;
export type Welcome = z.infer<typeof zWelcome>;
export type Command = z.infer<typeof zCommand>;
export type AgentEventFrame = z.infer<typeof zEvent>;
export type AgentToHub = z.infer<typeof zAgentToHub>;
export type HubToAgent = z.infer<typeof zHubToAgent>;
export type Refusal = z.infer<typeof zRefusal>;

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

function parseWith<T>(schema: z.ZodType<T>, raw: unknown): ParseResult<T> {
  let data: unknown;
  try {
    data = typeof raw === 'string' ? JSON.parse(raw) : JSON.parse(Buffer.from(raw as Buffer).toString('utf8'));
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  const r = schema.safeParse(data);
  return r.success ? { ok: true, message: r.data } : { ok: false, error: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
}

export const parseAgentToHub = (raw: unknown) => parseWith(zAgentToHub, raw);
export const parseHubToAgent = (raw: unknown) => parseWith(zHubToAgent, raw);

const zAnyCommand = zCommand.extend({ command: z.string().min(1).max(64) });

/**
 * A frame `parseHubToAgent` refused that is a well-formed command except that its type is not one
 * this build knows (a newer hub). The agent answers it `unsupported` and keeps the connection,
 * instead of closing as for a malformed frame. Null for anything else.
 */
export function unknownCommand(raw: unknown): { id: string; command: string; sessionId?: string } | null {
  const r = parseWith(zAnyCommand, raw);
  if (!r.ok || zCommandType.safeParse(r.message.command).success) return null;
  return { id: r.message.id, command: r.message.command, ...(r.message.sessionId ? { sessionId: r.message.sessionId } : {}) };
}

/** WebSocket close codes used by both ends. */
export const CloseCode = {
  normal: 1000,
  protocolError: 1002,
  tooBig: 1009,
  badToken: 4001,
  revoked: 4003,
  replaced: 4009,
  /** The agent's protocol is not the hub's (see PROTOCOL_HEADER). */
  protocolMismatch: 4010,
} as const;
