import { z } from 'zod';
import { MAX_FRAME_BYTES, zExecutor } from './messages.ts';
import { GIT_PAYLOADS } from './git.ts';
import { zReadJournal } from './read-journal.ts';
import { MODEL_MAX_LENGTH, parseModel } from './session-choices.ts';

/**
 * Payloads of the session commands the hub sends (the `payload` of a `command` frame). Every
 * session command also carries the observer `generation` it was issued under, inside the payload
 * (the stored command row has no column of its own for it) and mirrored in the frame when present:
 * the agent refuses a command whose generation is older than the one it already holds.
 */
const zGeneration = z.number().int().nonnegative();
/** It lands on the CLI's command line: only a name `parseModel` accepts as it is. */
const zModel = z
  .string()
  .min(1)
  .max(MODEL_MAX_LENGTH)
  .refine((m) => {
    const r = parseModel(m);
    return r.ok && r.model === m;
  }, 'not a valid model name');

/** Physical identity of a running CLI as the agent reported it; handed back verbatim for exact attach. */
export const zSessionIdentity = z
  .object({
    nativeSessionId: z.string().min(1).max(200).optional(),
    tmuxSocket: z.string().max(4096).optional(),
    tmuxPane: z.string().max(64).optional(),
    pid: z.number().int().positive().optional(),
    pidStartTime: z.union([z.string().max(64), z.number()]).optional(),
    journalPath: z.string().max(4096).optional(),
  })
  .catchall(z.unknown());
export type SessionIdentity = z.infer<typeof zSessionIdentity>;

export const zArchivedJournal = z.object({ path: z.string().max(4096), sizeBytes: z.number().int().nonnegative(), sha256: z.string().max(128) });

/**
 * Largest total of attachment bytes one message may carry. They travel base64-encoded inside the
 * single `deliver` frame, which must stay under MAX_FRAME_BYTES (1 MiB) with the text beside it:
 * 512 KiB becomes ~683 KiB of base64, leaving room for the message text and the envelope.
 */
export const MAX_ATTACHMENT_BYTES = 512 * 1024;

/** One attachment as carried to the node: its bytes inline, checked there against size and SHA-256. */
export const zAttachment = z.object({
  name: z.string().min(1).max(255),
  mime: z.string().max(255),
  sizeBytes: z.number().int().nonnegative().max(MAX_ATTACHMENT_BYTES),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  contentBase64: z
    .string()
    .max(Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/),
});
export type Attachment = z.infer<typeof zAttachment>;

export const zStartSession = z.object({
  generation: zGeneration,
  executor: zExecutor,
  folder: z.string().min(1).max(4096),
  permissionMode: z.string().max(64),
  /** The CLI's model (`parseModel`); absent = the CLI's own default. */
  model: zModel.optional(),
  /** Claude: chosen by Bria up front (v4 UUID). Codex: absent, the CLI tells it in `session_ready`. */
  nativeSessionId: z.uuid().optional(),
});

export const zResumeSession = z.object({
  generation: zGeneration,
  executor: zExecutor,
  folder: z.string().min(1).max(4096),
  nativeSessionId: z.string().min(1).max(200),
  permissionMode: z.string().max(64).optional(),
  model: zModel.optional(),
  /** Bria's own copy of the journal, restored by the agent if the CLI's original was cleaned up. */
  archivedJournal: zArchivedJournal.optional(),
  /**
   * "Continue here": the user confirmed ending this process outside Bria (pid + start token) that
   * holds the session; the agent ends it verifiably first. Without it, a held session is refused.
   */
  takeOver: z.object({ pid: z.number().int().positive(), startTime: z.string().min(1).max(64) }).optional(),
});

/**
 * "Adopt in place": the session's CLI runs, begun by hand, in a tmux pane of the same user; the agent
 * binds to that pane and types into it like into its own, without restarting the CLI. `pid` +
 * `startTime` name exactly the process the user saw; the agent checks again that it alone holds
 * the session, belongs to its user and runs in the pane its environment names (node-agent
 * `handoff/adopt.ts`). It answers like a resume (`resume_confirmed` / `resume_failed`).
 */
export const zAdoptInPlace = z.object({
  generation: zGeneration,
  executor: zExecutor,
  folder: z.string().min(1).max(4096),
  nativeSessionId: z.string().min(1).max(200),
  pid: z.number().int().positive(),
  startTime: z.string().min(1).max(64),
});

export const zDeliver = z.object({
  generation: zGeneration,
  messageId: z.uuid(),
  text: z.string().max(200_000),
  attachments: z
    .array(zAttachment)
    .max(20)
    .refine((a) => a.reduce((n, x) => n + x.sizeBytes, 0) <= MAX_ATTACHMENT_BYTES, `attachments exceed ${MAX_ATTACHMENT_BYTES} bytes in total`)
    .optional(),
  /** Set for a follow-up that joins the running turn of this main request. */
  mainMessageId: z.uuid().optional(),
});

export const zInterrupt = z.object({ generation: zGeneration });
export const zCloseSession = z.object({ generation: zGeneration });
export const zAttachSession = z.object({ generation: zGeneration, identity: zSessionIdentity, executor: zExecutor, folder: z.string().max(4096) });
export const zValidateFolder = z.object({ folder: z.string().min(1).max(4096) });
export const zDiscover = z.object({ full: z.boolean().optional() });

/**
 * Bounds of a question's answers (the user's content in `answer_permission`): at most
 * `MAX_ANSWERS` questions, each key (the question's text) 2,000 characters, each answer 4,000
 * characters or a list of at most 50 such, and `MAX_ANSWERS_CHARS` as JSON in all. A CLI asks a few
 * questions with a few options each: these are far above any real answer, far below a frame.
 */
export const MAX_ANSWERS = 20;
export const MAX_ANSWERS_CHARS = 64_000;
export const zAnswers = z
  .record(z.string().max(2000), z.union([z.string().max(4000), z.array(z.string().max(4000)).max(50)]))
  .refine((a) => Object.keys(a).length <= MAX_ANSWERS, `at most ${MAX_ANSWERS} answers`)
  .refine((a) => JSON.stringify(a).length <= MAX_ANSWERS_CHARS, `answers exceed ${MAX_ANSWERS_CHARS} characters`);

/**
 * The user's answer to a pending permission request (session event `permission_request`).
 * `answerId` makes a repeated command one answer; the agent hands the CLI the first answer only.
 * `message` (deny only) reaches the model as the tool's error; `answers` (allow of a question
 * only) maps each question's text to the chosen label(s). `from` is where it was pressed.
 */
export const zAnswerPermission = z
  .object({
    generation: zGeneration,
    requestId: z.uuid(),
    answerId: z.uuid(),
    /** `at_computer`: no answer from here; the hook lets go so the CLI shows its own dialog (Codex shows it only then). */
    decision: z.enum(['allow', 'deny', 'always_allow', 'at_computer']),
    message: z.string().min(1).max(4000).optional(),
    answers: zAnswers.optional(),
    from: z.enum(['telegram', 'dashboard']),
  })
  .refine((v) => v.message === undefined || v.decision === 'deny', 'message goes with deny only')
  .refine((v) => v.answers === undefined || v.decision === 'allow', 'answers go with allow only');
export type AnswerPermissionPayload = z.infer<typeof zAnswerPermission>;

/**
 * The user's answer to a start dialog the agent recognised (`blocked_on_prompt.dialog`): `accept`
 * presses the dialog's first choice (trust the folder) only if the pane still shows that dialog.
 * (Cancelling a start is a close of the session, not this command.)
 */
export const zAnswerDialog = z.object({ generation: zGeneration, requestId: z.uuid(), dialog: z.enum(['folder_trust']), choice: z.literal('accept') });
export type AnswerDialogPayload = z.infer<typeof zAnswerDialog>;

/**
 * The CLI's own `/compact` (both CLIs summarise the conversation so far into a shorter context), run
 * only while the session's CLI is idle at its prompt; typed as the command, never as message text.
 * The answer says what the CLI's journal recorded (`detail`: Claude's own output line).
 */
export const zCompactContext = z.object({ generation: zGeneration });

export const SESSION_COMMAND_PAYLOADS = {
  start_session: zStartSession,
  resume_session: zResumeSession,
  deliver: zDeliver,
  interrupt: zInterrupt,
  close_session: zCloseSession,
  attach_session: zAttachSession,
  validate_folder: zValidateFolder,
  discover: zDiscover,
  read_journal: zReadJournal,
  answer_permission: zAnswerPermission,
  answer_dialog: zAnswerDialog,
  compact_context: zCompactContext,
  adopt_in_place: zAdoptInPlace,
  ...GIT_PAYLOADS,
} as const;
export type SessionCommandType = keyof typeof SESSION_COMMAND_PAYLOADS;
export type SessionCommandPayload<T extends SessionCommandType> = z.infer<(typeof SESSION_COMMAND_PAYLOADS)[T]>;

export function parseSessionCommand<T extends SessionCommandType>(
  type: T,
  payload: unknown,
): { ok: true; payload: SessionCommandPayload<T> } | { ok: false; error: string } {
  const r = SESSION_COMMAND_PAYLOADS[type].safeParse(payload);
  return r.success
    ? { ok: true, payload: r.data as SessionCommandPayload<T> }
    : { ok: false, error: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
}

/** Room kept in a command frame for its envelope (ids, type, session) around the payload. */
export const COMMAND_ENVELOPE_BYTES = 4096;

/**
 * Why a command of `type` with `payload` cannot be stored, or null: a payload whose frame would
 * exceed MAX_FRAME_BYTES would close the agent's connection on every send. Checked where commands
 * are stored (db/repos), so no sender can queue one.
 */
export function commandSizeRefusal(type: string, payload: Record<string, unknown>): string | null {
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  return bytes > MAX_FRAME_BYTES - COMMAND_ENVELOPE_BYTES ? `${type}: payload of ${bytes} bytes exceeds ${MAX_FRAME_BYTES - COMMAND_ENVELOPE_BYTES}` : null;
}
