import type { ActivityPayload, Executor, SessionPermissionMode } from '@bria/core/protocol';
import type { JournalLine } from '../journal/jsonl-tailer.ts';
import type { LimitReport } from '../journal/limits.ts';
import type { MalformedLine, NativePrompt, RecordRef, TokenUsage, TurnOutcome } from '../journal/types.ts';
import type { Tmux } from '../tmux/tmux.ts';

export type { Executor };
/** A stored mode (the closed lists in core protocol/session-choices.ts; each driver reads older values too). */
export type PermissionMode = SessionPermissionMode;
export type Env = Readonly<Record<string, string | undefined>>;

/** What both journal parsers offer the host. */
export interface JournalReader {
  ingest(lines: readonly JournalLine[]): void;
  promptsFrom(offset: number): NativePrompt[];
  outcome(nativeRef: string): TurnOutcome;
  readonly malformed: MalformedLine[];
  /** Session ids the journal itself states. */
  statedIds(): string[];
  /** What the turns did (tool calls, texts, context use), drained after each ingest. */
  readonly activity: { floor: number; drain(): ActivityPayload[] };
  /** Usage-limit states the journal showed (limits.ts), drained after each ingest. */
  readonly limits: { drain(): LimitReport[] };
}

export interface DriverContext {
  tmux: Tmux;
  paneId: string;
  cwd: string;
  env: Env;
  cliPid: number;
  /** ms since epoch, taken just before the CLI was started. */
  startedAt: number;
}

/** How one CLI run gets Bria's permission hooks; at most the field of its own executor is set. */
export interface HookLaunch {
  /** Claude: the session's settings file (`HookChannel.settingsFor`), passed as `--settings=<file>`. */
  settingsPath?: string;
  /** Codex: `-c` overrides (`HookChannel.codexConfigArgs`), placed before any positional argument. */
  codexHooks?: string[];
}

/** Everything that differs between the two CLIs; the shared flow lives in SessionHost. */
export interface ExecutorDriver {
  readonly executor: Executor;
  /** Claude takes an id chosen up front; Codex picks its own (null here). */
  chooseNativeId(): string | null;
  /**
   * Bria's per-session permission hooks (../hooks): `settingsPath` for Claude (`--settings`),
   * `codexHooks` for Codex (the `-c` overrides of `HookChannel.codexConfigArgs`).
   * `model`: validated by the hub (protocol `parseModel`); absent = the CLI's own default.
   */
  startArgs(opts: { nativeId: string | null; cwd: string; permissionMode: PermissionMode; model?: string } & HookLaunch): string[];
  resumeArgs(opts: { nativeId: string; cwd: string; permissionMode: PermissionMode; model?: string } & HookLaunch): string[];
  /** Whether `settingsPath` is supported (Claude). */
  readonly hookSettings?: boolean;
  /** Whether `codexHooks` is supported (Codex). */
  readonly codexHooks?: boolean;
  /** Pause after the prompt first shows before trusting it (Codex paints it even when resume fails). */
  readonly settleMs: { start: number; resume: number };
  /** The id the running CLI states for itself, with where it was read. */
  readNativeId(ctx: DriverContext): Promise<{ nativeId: string | null; evidence: string }>;
  /** The id the CLI states without any input to the pane (safe while a turn runs); undefined = cannot. */
  readNativeIdPassive?(ctx: DriverContext): Promise<string | null>;
  /** The journal file of this session, or null while it does not exist yet / cannot be found. */
  findJournal(ctx: DriverContext, nativeId: string, opts: { resumed: boolean }): Promise<string | null>;
  createJournal(): JournalReader;
  /**
   * Types the user's text into the idle input box and submits it so that the model receives exactly
   * that text (see type-prompt.ts); throws `not_ready` when it verifiably submitted nothing.
   */
  submitPrompt(tmux: Tmux, paneId: string, text: string): Promise<void>;
  /** Whether a stored prompt is the text the user sent. */
  promptMatches(stored: string, sent: string): boolean;
  /**
   * How this CLI takes image files as images (absent: it does not; the agent names them as paths).
   * `submit` types the images and the text and submits once; `textAfter` is the typed text of a
   * stored prompt that carried `count` images, or null when the prompt does not carry them.
   */
  images?: {
    submit(tmux: Tmux, paneId: string, text: string, files: readonly string[]): Promise<void>;
    textAfter(stored: string, count: number): string | null;
  };
  /**
   * After an Esc, whether the CLI says it is idle without having journaled anything (Claude writes no
   * record when Esc arrives before the first response byte). null = this CLI cannot tell.
   */
  idleStatus(ctx: DriverContext): Promise<{ idle: boolean; updatedAt: number | null; evidence: string } | null>;
}

export interface SessionIdentity {
  executor: Executor;
  tmuxSocket: string;
  tmuxSession: string;
  paneId: string;
  panePid: number;
  cliPid: number;
  /** The process layer's start token (/proc stat field 22, or `ps` lstart; process-table.ts): with the pid it names one process. */
  cliStartTime: string;
  cwd: string;
  nativeId: string;
  journalPath: string | null;
  exitFile: string;
}

export type Evidence = Partial<RecordRef> & Record<string, unknown>;

export type HostEvent =
  | { type: 'ready'; nativeId: string; resumed: boolean; evidence: Evidence }
  | { type: 'accepted'; messageId: string; nativeRef: string; evidence: Evidence }
  | { type: 'final'; messageId: string; text: string; evidence: Evidence }
  | { type: 'completed'; messageId: string; evidence: Evidence }
  | { type: 'interrupted'; messageId: string | null; reason: string; evidence: Evidence }
  | { type: 'api_error'; messageId: string; errorText: string; evidence: Evidence }
  | { type: 'usage'; messageId: string; usage: TokenUsage; evidence: Evidence }
  | { type: 'activity'; activity: ActivityPayload }
  | { type: 'limit'; limit: LimitReport }
  | { type: 'exited'; expected: boolean; pids: number[]; exitStatus: number | null; paneDead: boolean; evidence: Evidence }
  | { type: 'blocked_on_prompt'; promptText: string; evidence: Evidence }
  | { type: 'unknown'; messageId: string | null; reason: string; evidence: Evidence };

export class ExecutorError extends Error {
  constructor(
    readonly code: 'start_failed' | 'resume_failed' | 'not_ready' | 'busy' | 'closed' | 'blocked_on_prompt',
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
