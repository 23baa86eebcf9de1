import { z } from 'zod';

/**
 * Answers of the agent to the hub's commands: the payload of a `command_result` event, `{ command,
 * ...answer }`. A refusal or failure carries a machine `code` (what the hub decides on) and the human
 * text beside it (`error`; `validate_folder`: `reason`), which is only ever shown or stored, never
 * parsed. Besides the code, some answers carry machine facts of their own that the hub reads:
 * `typed: false` (proof that nothing reached the CLI), `delivery`, `interrupted` (answered after an
 * agent restart, never run twice), `exited` (the agent ended a never-confirmed CLI).
 *
 * Compatibility: an agent of an older build may send no `code`, or one this build does not know.
 * Parsing never fails for that: the code is then derived from the answer's older machine flags
 * (`legacyFailureCode`) and is otherwise the generic `failed`.
 */
export const COMMAND_FAILURE_CODES = [
  /** Generic: no more specific reason (also an older agent's answer without a code). */
  'failed',
  /** The command's payload did not pass the agent's schema, or a session command came without a session id. */
  'invalid_payload',
  /** The agent does not handle this command (unknown type, or a feature off on it). */
  'unsupported',
  /** Issued under an older observer generation than the one the agent holds. */
  'stale_generation',
  /** The agent died running the command and answered it after its restart. */
  'interrupted',
  /** `deliver`: nothing reached the CLI (no live CLI here, not ready, gone before the paste); see `typed`. */
  'not_typed',
  /** `deliver`: an attachment could not be stored on the computer; nothing reached the CLI. */
  'attachment_not_stored',
  /** `deliver`: the text may or may not have reached the CLI (no receipt in time); never retyped. */
  'delivery_unknown',
  /** `start_session`: not started again, something may have reached the earlier CLI (resume exactly). */
  'conversation_may_exist',
  /** `resume_session`: the native id is not in the CLI's own format; nothing was touched. */
  'invalid_native_id',
  /** `resume_session`: the conversation's folder is missing (or unusable) on the computer. */
  'folder_missing',
  /** `resume_session`: the session was closed before it held any conversation. */
  'nothing_to_resume',
  /** `start_session` / `attach_session`: the CLI waits on a dialog for the user on the computer. */
  'blocked',
  /** `attach_session` / `close_session`: the running process is not the recorded one. */
  'identity_mismatch',
  /** `validate_folder`: not an absolute path (or an unusable name). */
  'not_absolute',
  /** `validate_folder`: the path exists but is a file. */
  'not_a_folder',
  /** `validate_folder`: the path goes through a symbolic link. */
  'symlink',
  /** `validate_folder`: the folder exists but cannot be read. */
  'unreadable',
  /** `read_journal`: neither the CLI's journal nor an archive copy exists on the node. */
  'not_found',
  /** `resume_session` / `start_session`: a process outside Bria (a terminal at the computer) holds the native session; nothing was started. */
  'held_elsewhere',
  /** `resume_session` with `takeOver`: the desk CLI could not be ended (another user's process, no exit within the bounds); nothing was started. */
  'take_over_failed',
  /** `adopt_in_place`: the CLI does not run in a tmux pane (no `TMUX` / `TMUX_PANE` in its environment); nothing was touched. */
  'not_in_tmux',
  /** `adopt_in_place`: the CLI (or its tmux server) belongs to another user; nothing was touched. */
  'other_user',
  /** `adopt_in_place`: the pane its environment names is gone, or the CLI is not in that pane's process tree. */
  'pane_gone',
  /** `adopt_in_place`: the session is not held by the process the user saw (pid + start) any more, or by another one too. */
  'holder_changed',
  /** Git commands (protocol/git.ts): git refused; its own words are in `error`. */
  'git_failed',
  /** Git commands: the folder is not inside a git work tree. */
  'not_a_repository',
  /** `git_finish`: removing the worktree would lose uncommitted work; asked again with `force`. */
  'uncommitted_work',
  /** `git_finish`: the base branch is not the one checked out in the repository, so nothing was merged. */
  'base_not_checked_out',
  /** Git commands: git did not end in time and was killed. */
  'timeout',
] as const;
export const zCommandFailureCode = z.enum(COMMAND_FAILURE_CODES);
export type CommandFailureCode = z.infer<typeof zCommandFailureCode>;

/** An unknown code (a newer agent) reads as absent, so the older flags or the generic code apply. */
const zCode = zCommandFailureCode.optional().catch(undefined);

/** What every answer may carry; anything else an answer holds is kept verbatim as evidence. */
const zAnswerBase = z.looseObject({
  ok: z.boolean().optional(),
  code: zCode,
  /** Human text: why it failed or was refused (shown and stored, never parsed). */
  error: z.string().optional(),
  interrupted: z.boolean().optional(),
  /** Older flag of `stale_generation`. */
  stale: z.boolean().optional(),
});

export const zDeliverResult = zAnswerBase.extend({
  command: z.literal('deliver'),
  /** `false`: proof that nothing reached the CLI (the hub may hand the message over again). */
  typed: z.boolean().optional(),
  /** `accepted` (receipt bound), `not_typed` (also `typed: false`), `unknown`. */
  delivery: z.enum(['accepted', 'not_typed', 'unknown']).optional().catch(undefined),
  messageId: z.string().optional(),
  /** Receipt the agent bound (Codex turn id, Claude record uuid). */
  nativeRef: z.string().optional(),
  /** Human text of `attachment_not_stored` (older flag of that code). */
  attachmentError: z.string().optional(),
});

export const zLaunchResult = zAnswerBase.extend({
  command: z.enum(['start_session', 'resume_session', 'adopt_in_place']),
  /** Older flag of `blocked`. */
  blocked: z.boolean().optional(),
  /** An interrupted launch whose never-confirmed CLI the agent ended: a verified exit. */
  exited: z.boolean().optional(),
  /** With `exited`: what the session's native journal held (`none`: the CLI never wrote one), as a close reports it. */
  journal: z.string().max(32).optional(),
});

/** Any other command's answer (`interrupt`, `close_session`, `attach_session`, `discover`, `probe`, …). */
export const zOtherResult = zAnswerBase.extend({ command: z.string().max(64) });

/** `validate_folder`: the folder's real path, or why it cannot be used (`reason` is the human text). */
export const zValidateFolderResult = z.union([
  zAnswerBase.extend({ ok: z.literal(true), folder: z.string() }),
  zAnswerBase.extend({ ok: z.literal(false), reason: z.string().optional() }),
]);
export type ValidateFolderResult = z.infer<typeof zValidateFolderResult>;

export type DeliverResult = z.infer<typeof zDeliverResult>;
export type LaunchResult = z.infer<typeof zLaunchResult>;
export type OtherResult = z.infer<typeof zOtherResult>;
/** A parsed `command_result` payload, with `code` always set on an answer that is not `ok`. */
export type CommandResult = (DeliverResult & { kind: 'deliver' }) | (LaunchResult & { kind: 'launch' }) | (OtherResult & { kind: 'other' });

/** An answer as the agent builds it, before `command` is added (the ledger keeps it too). */
export type CommandAnswer = z.input<typeof zAnswerBase> & Record<string, unknown>;

/**
 * The code an answer without one (an older agent, or an answer built from older flags) stands for.
 * Reads machine flags only, never texts.
 */
export function legacyFailureCode(a: {
  stale?: unknown;
  attachmentError?: unknown;
  typed?: unknown;
  delivery?: unknown;
  blocked?: unknown;
  interrupted?: unknown;
}): CommandFailureCode {
  if (a.stale === true) return 'stale_generation';
  if (typeof a.attachmentError === 'string') return 'attachment_not_stored';
  if (a.typed === false || a.delivery === 'not_typed') return 'not_typed';
  if (a.delivery === 'unknown') return 'delivery_unknown';
  if (a.blocked === true) return 'blocked';
  if (a.interrupted === true) return 'interrupted';
  return 'failed';
}

/** The answer's code, or the one its older flags stand for; null for an answer that is `ok`. */
export function failureCode(a: { ok?: unknown; code?: unknown } & Parameters<typeof legacyFailureCode>[0]): CommandFailureCode | null {
  if (a.ok === true) return null;
  const known = zCommandFailureCode.safeParse(a.code);
  return known.success ? known.data : legacyFailureCode(a);
}

const issues = (e: z.ZodError) => e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');

/** Parses a `command_result` payload; never throws. */
export function parseCommandResult(raw: unknown): { ok: true; result: CommandResult } | { ok: false; error: string } {
  const command = raw && typeof raw === 'object' ? (raw as { command?: unknown }).command : undefined;
  if (command === 'deliver') {
    const r = zDeliverResult.safeParse(raw);
    return r.success ? { ok: true, result: { ...r.data, code: failureCode(r.data) ?? undefined, kind: 'deliver' } } : { ok: false, error: issues(r.error) };
  }
  if (command === 'start_session' || command === 'resume_session' || command === 'adopt_in_place') {
    const r = zLaunchResult.safeParse(raw);
    return r.success ? { ok: true, result: { ...r.data, code: failureCode(r.data) ?? undefined, kind: 'launch' } } : { ok: false, error: issues(r.error) };
  }
  const r = zOtherResult.safeParse(raw);
  return r.success ? { ok: true, result: { ...r.data, code: failureCode(r.data) ?? undefined, kind: 'other' } } : { ok: false, error: issues(r.error) };
}
