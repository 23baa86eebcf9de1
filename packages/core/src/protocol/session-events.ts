import { z } from 'zod';
import { zCommandFailureCode } from './command-results.ts';
import { zActivity } from './session-activity.ts';
import { zSessionIdentity } from './session-commands.ts';

/**
 * Payloads of the agent events the session engine consumes (the `payload` of an `event` frame).
 * Session events must carry the frame's `sessionId` and `generation`: an event from an older
 * observer generation is refused by the hub. Evidence objects are stored verbatim as inspectable
 * proof, so they hold physical facts (pids, exit codes, offsets), never message texts.
 */
const zEvidence = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));
const zTurnId = z.string().min(1).max(200);

export const zSessionReady = z.object({ identity: zSessionIdentity });
export const zResumeConfirmed = z.object({ identity: zSessionIdentity.optional() });
/**
 * `code` `conversation_may_exist`: the agent refused to start a session's CLI again (the hub judged
 * that its conversation never began) because its own record or the CLI's store shows that something
 * may have reached that CLI; from then on the session is only ever resumed exactly.
 */
export const zResumeFailureCode = zCommandFailureCode.extract([
  'conversation_may_exist',
  'invalid_native_id',
  'folder_missing',
  'nothing_to_resume',
  'held_elsewhere',
  'take_over_failed',
  'not_in_tmux',
  'other_user',
  'pane_gone',
  'holder_changed',
]);
/**
 * A process outside Bria's tmux that holds a native session (node-agent `handoff/`): pid and start
 * token (with the pid it names one process), when it started (ms since the epoch, when known), its
 * command line (clipped) and whether it runs in a tmux pane.
 */
export const zDeskHolder = z.object({
  pid: z.number().int().positive(),
  startTime: z.string().min(1).max(64),
  since: z.number().optional(),
  command: z.string().max(300),
  inTmux: z.boolean(),
});
export type DeskHolder = z.infer<typeof zDeskHolder>;
/** `reason` is the human text; `code` the machine reason (an unknown one, from a newer agent, reads as absent). */
export const zResumeFailed = z.object({
  reason: z.string().min(1).max(500),
  code: zResumeFailureCode.optional().catch(undefined),
  /** `held_elsewhere` / `take_over_failed`: the process that holds the session. */
  holder: zDeskHolder.optional().catch(undefined),
});
/** Receipt: the message was seen in the native journal. Codex: turn id; Claude: user record uuid. */
export const zTurnAccepted = z
  .object({
    messageId: z.uuid(),
    nativeTurnId: zTurnId.optional(),
    nativeRecordId: zTurnId.optional(),
    offset: z.number().int().nonnegative().optional(),
    /** The session's identity, when the receipt taught the agent something new (a Codex rollout path appears with the first prompt). */
    identity: zSessionIdentity.optional(),
  })
  .refine((v) => v.nativeTurnId !== undefined || v.nativeRecordId !== undefined, 'nativeTurnId or nativeRecordId is required');
/**
 * A final answer of up to 4,000,000 characters (~8 MB as UTF-8): beyond one frame the agent splits it
 * into parts (event-frames.ts) that the hub joins; beyond this bound the agent's ledger refuses it.
 */
export const MAX_FINAL_CHARS = 4_000_000;
export const zTurnFinal = z.object({ messageId: z.uuid().optional(), nativeTurnId: zTurnId, text: z.string().max(MAX_FINAL_CHARS) });
const zTurnEnd = z.object({ messageId: z.uuid().optional(), nativeTurnId: zTurnId, offset: z.number().int().nonnegative().optional() });
export const zTurnCompleted = zTurnEnd;
export const zTurnInterrupted = zTurnEnd;
export const zTurnApiError = zTurnEnd.extend({ error: z.string().max(500).optional() });
/**
 * Tokens of one completed turn, from the journal. This version sends the four kinds apart
 * (`inputTokens` without cached tokens, `cacheReadTokens`, `cacheWriteTokens`, `outputTokens`), the
 * model the journal names and the turn; an older agent sent `inputTokens` and `cachedInputTokens`
 * (`reportedTokens`, domain/usage-prices.ts).
 */
export const zUsage = z
  .object({
    messageId: z.uuid().optional(),
    nativeTurnId: zTurnId.optional(),
    model: z.string().min(1).max(100).optional(),
    inputTokens: z.number().int().nonnegative().optional(),
    outputTokens: z.number().int().nonnegative().optional(),
    cacheReadTokens: z.number().int().nonnegative().optional(),
    cacheWriteTokens: z.number().int().nonnegative().optional(),
    contextWindowUsed: z.number().nonnegative().optional(),
    compactions: z.number().int().nonnegative().optional(),
  })
  .catchall(z.unknown());
/**
 * A usage-limit signal the CLI journaled (issue 33): Claude's "limit reached … resets …" API error
 * record, or the `rate_limits` of a Codex `token_count` event. `reached`: the CLI refuses work until
 * `resetsAt` (ms since the epoch, when the CLI said). `windows`: the CLI's windows as reported
 * (Codex: primary / secondary with their used percent). `text`: the CLI's own words, clipped.
 */
export const zLimitState = z.object({
  executor: z.enum(['claude', 'codex']),
  reached: z.boolean(),
  resetsAt: z.number().int().nonnegative().optional(),
  windows: z
    .array(
      z.object({
        name: z.string().min(1).max(40),
        usedPercent: z.number().min(0).max(1000),
        windowMinutes: z.number().int().nonnegative().optional(),
        resetsAt: z.number().int().nonnegative().optional(),
      }),
    )
    .max(8)
    .default([]),
  text: z.string().max(300).optional(),
  /** When the CLI wrote the record (ms since the epoch). */
  at: z.number().int().nonnegative(),
});
export type LimitStatePayload = z.infer<typeof zLimitState>;
export const zProcessExited = z.object({
  pids: z.array(z.number().int().positive()).max(64),
  exitStatus: z.number().int().nullable(),
  paneDead: z.boolean(),
  /** pid + start time verified gone AND pane closed; observer EOF alone is never `verified`. */
  verified: z.boolean(),
  /**
   * What the CLI's journal holds, as a close reports it (`none`, `present`, …), when the agent knows
   * (a re-attach that found the CLI gone): a session closing when its CLI died is archived on this
   * exit, and the evidence must say why no copy exists.
   */
  journal: z.string().max(32).optional(),
});
export const zSessionClosed = z.object({
  evidence: zEvidence.and(z.object({ verified: z.boolean() })),
  /** Bria's own copy of the journal, written by the agent before it reports the close. */
  archivedJournal: z.object({ path: z.string().max(4096), sizeBytes: z.number().int().nonnegative(), sha256: z.string().max(128) }).optional(),
});
/**
 * The CLI waits on a dialog; its screen text. `dialog`: the agent recognised a dialog the user may
 * answer remotely (`folder_trust`: a start's folder-trust question, answered with `answer_dialog`).
 */
export const zBlockedOnPrompt = z.object({ text: z.string().max(4000), dialog: z.enum(['folder_trust']).optional() });
/** A re-check found no exact evidence for a message; `processAlive` says whether its turn may still end. */
export const zEvidenceUnknown = z.object({ messageId: z.uuid(), processAlive: z.boolean() });
export const zObserverLost = z.object({ reason: z.string().max(200).optional() });
export const zReattached = z.object({ identity: zSessionIdentity });
export const zIdentityMismatch = z.object({
  reason: z.enum(['identity_mismatch', 'competing_owner', 'not_found']).default('identity_mismatch'),
  expected: zSessionIdentity.optional(),
  found: zSessionIdentity.optional(),
});
const zDiscovered = z.object({
  executor: z.enum(['claude', 'codex']),
  nativeSessionId: z.string().min(1).max(200),
  folder: z.string().max(4096),
  title: z.string().max(500).optional(),
  firstPrompt: z.string().max(2000).optional(),
  journalPath: z.string().max(4096).optional(),
  startedAt: z.number().optional(),
  lastActivityAt: z.number().optional(),
  userTurns: z.number().int().nonnegative().optional(),
  /**
   * The process outside Bria holding the session, or null when none does. Absent from an agent that
   * does not look (an older one): nothing is known, nothing changes.
   */
  outside: zDeskHolder.nullable().optional(),
});
export const zDiscoveryDiff = z.object({
  added: z.array(zDiscovered).max(5000),
  changed: z.array(zDiscovered).max(5000),
  removed: z.array(z.object({ executor: z.enum(['claude', 'codex']), nativeSessionId: z.string().min(1).max(200) })).max(5000),
});
export type DiscoveredSession = z.infer<typeof zDiscovered>;

/**
 * A permission request the CLI asked through Bria's hook (node-agent `hooks/`): what the user
 * decides on. `requestId` is the agent's; `toolInput` is the CLI's own input of the tool (the
 * command, the file and edit, the questions), bounded. `canAlwaysAllow`: the CLI accepts a
 * session-scoped "always allow" for it (Claude). Times are ms since the epoch; after `expiresAt`
 * the question waits at the computer.
 */
export const zPermissionRequest = z
  .object({
    requestId: z.uuid(),
    executor: z.enum(['claude', 'codex']),
    kind: z.enum(['tool', 'question']),
    toolName: z.string().min(1).max(200),
    toolInput: z.record(z.string(), z.unknown()).refine((v) => JSON.stringify(v).length <= 64_000, 'toolInput exceeds 64000 characters'),
    /** Codex's `description` (the model's justification), when given. */
    justification: z.string().max(4000).optional(),
    canAlwaysAllow: z.boolean(),
    receivedAt: z.number().int().nonnegative(),
    expiresAt: z.number().int().nonnegative(),
  })
  .refine((v) => v.expiresAt >= v.receivedAt, 'expiresAt is before receivedAt');
/**
 * How a permission request ended, as the agent saw it: `answered` (the hook got the answer of
 * `answerId`), `hook_gone` (the hook ended without an answer: the CLI ended or killed it, or it was
 * answered at the computer), `expired` (the bound passed; it waits at the computer), `lost_on_restart`.
 */
export const zPermissionResolved = z
  .object({
    requestId: z.uuid(),
    outcome: z.enum(['answered', 'hook_gone', 'expired', 'lost_on_restart']),
    answerId: z.uuid().optional(),
    at: z.number().int().nonnegative(),
    evidence: zEvidence.optional(),
  })
  .refine((v) => (v.outcome === 'answered') === (v.answerId !== undefined), 'answerId goes with outcome answered, and only with it');
export type PermissionRequestPayload = z.infer<typeof zPermissionRequest>;
export type PermissionResolvedPayload = z.infer<typeof zPermissionResolved>;

export const SESSION_EVENT_PAYLOADS = {
  session_ready: zSessionReady,
  resume_confirmed: zResumeConfirmed,
  resume_failed: zResumeFailed,
  turn_accepted: zTurnAccepted,
  turn_final: zTurnFinal,
  turn_completed: zTurnCompleted,
  turn_interrupted: zTurnInterrupted,
  turn_api_error: zTurnApiError,
  usage: zUsage,
  limit_state: zLimitState,
  process_exited: zProcessExited,
  session_closed: zSessionClosed,
  blocked_on_prompt: zBlockedOnPrompt,
  evidence_unknown: zEvidenceUnknown,
  observer_lost: zObserverLost,
  reattached: zReattached,
  identity_mismatch: zIdentityMismatch,
  discovery_diff: zDiscoveryDiff,
  permission_request: zPermissionRequest,
  permission_resolved: zPermissionResolved,
  activity: zActivity,
} as const;
export type SessionEventName = keyof typeof SESSION_EVENT_PAYLOADS;
export type SessionEventPayload<T extends SessionEventName> = z.infer<(typeof SESSION_EVENT_PAYLOADS)[T]>;
/** A payload as the agent builds it (before zod defaults apply). */
export type SessionEventInput<T extends SessionEventName> = z.input<(typeof SESSION_EVENT_PAYLOADS)[T]>;
/** One session event as the agent emits it: a misspelt name or a wrong payload does not compile. */
export type SessionEventOut = { [K in SessionEventName]: { event: K; payload: SessionEventInput<K> } }[SessionEventName];
/** A parsed event as the engine consumes it. */
export type ParsedSessionEvent = { [K in SessionEventName]: { name: K; payload: SessionEventPayload<K> } }[SessionEventName];

export function isSessionEventName(name: string): name is SessionEventName {
  return Object.hasOwn(SESSION_EVENT_PAYLOADS, name);
}

export function parseSessionEvent(name: string, payload: unknown): { ok: true; event: ParsedSessionEvent } | { ok: false; error: string } {
  if (!isSessionEventName(name)) return { ok: false, error: `unknown event ${name.slice(0, 64)}` };
  const r = SESSION_EVENT_PAYLOADS[name].safeParse(payload);
  if (!r.success) return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { ok: true, event: { name, payload: r.data } as ParsedSessionEvent };
}
