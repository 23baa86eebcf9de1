import type { TranscribeConfig } from '@bria/core/env';
import type { Logger } from '@bria/core/log';
import type { AnswerPromptInput, AnswerPromptResult, ChangesDto, Db, DraftDto, GitRefusalDto, VoiceNoteDto } from '@bria/core/services';

export type Executor = 'claude' | 'codex';

export interface AttachmentIn {
  fileName: string;
  mimeType: string;
  bytes: Buffer;
  sha256: string;
}

/**
 * What the bot asks of core's session services. The bot holds no session logic: every change of a
 * session (create, stop, close, resume, accept a message) and of the settings is one of these
 * calls. Errors are core `AppError`s; their codes decide the notice the user sees.
 */
export interface SessionActions {
  createSession(o: {
    chatId: bigint;
    nodeId: string;
    executor: Executor;
    folder: string;
    permissionMode?: string;
    model?: string;
  }): Promise<{ sessionId: string }>;
  /** Validates a working folder on the node (its real path comes back); `reason` is shown to the user. */
  validateFolder(o: { nodeId: string; folder: string }): Promise<{ ok: true; folder?: string } | { ok: false; reason: string }>;
  stopSession(o: { sessionId: string; cardVersion?: number }): Promise<void>;
  /** The CLI's own `/compact` while the session is idle (core `compactSession`). */
  compactSession(o: { sessionId: string }): Promise<void>;
  closeSession(o: { sessionId: string; cardVersion?: number }): Promise<void>;
  resumeSession(o: { chatId: bigint; sessionId: string }): Promise<void>;
  /** "Continue here" for a session running in a terminal at its computer (core `continueHere`). */
  continueHere(o: { chatId: bigint; sessionId: string; pid: number }): Promise<void>;
  /** "Adopt in place" for a session whose CLI runs in a tmux pane of the user's own (core `adoptInPlace`). */
  adoptInPlace(o: { chatId: bigint; sessionId: string; pid: number }): Promise<void>;
  acceptMessage(o: {
    sessionId: string;
    chatId: bigint;
    source: 'telegram';
    sourceKey: string;
    text: string;
    attachments?: AttachmentIn[];
    /** `/now`: interrupt the running turn and deliver this next (core `sendMessageNow`). */
    now?: boolean;
  }): Promise<{ messageId: string; seq: number; interrupted?: boolean }>;
  /** Cancels a queued message never handed to the CLI (core `cancelMessage`); refused `CONFLICT` once it was. */
  cancelMessage(o: { messageId: string }): Promise<{ seq: number }>;
  /** Replaces the text of a queued message never handed to the CLI (core `editMessage`); refused `CONFLICT` once it was. */
  editMessage(o: { messageId: string; text: string }): Promise<{ seq: number }>;
  updateSettings(o: { lifetimeHours?: number | null; resumeRecommendations?: boolean }): Promise<void>;
  setExecutors(o: { nodeId: string; executors: Executor[] }): Promise<void>;
  /** The permission mode preselected for new sessions of one executor on a node. */
  setPermissionMode(o: { nodeId: string; executor: Executor; mode: string }): Promise<void>;
  createLoginLink(o: { telegramUserId: bigint; name?: string }): Promise<{ url: string; expiresAt: Date }>;
  /** Stores a voice note or audio for the session in the attachments folder (core `keepVoiceNote`). */
  keepVoiceNote(o: { sessionId: string; chatId: bigint; sourceKey: string; file: AttachmentIn }): Promise<{ note: VoiceNoteDto; duplicate: boolean }>;
  /** The user's answer to a CLI's permission request or question; the first answer wins (core `answerPrompt`). */
  answerPrompt(o: AnswerPromptInput): Promise<AnswerPromptResult>;
  /** The session's changes, read on its computer (core `readSessionChanges`, docs/worktrees.md). */
  gitChanges(o: { sessionId: string; paths?: string[] }): Promise<ChangesDto>;
  /** Commit all changes, untracked files too (core `commitSessionChanges`). */
  gitCommit(o: { sessionId: string; message: string }): Promise<{ ok: true; commit: string; summary: string } | GitRefusalDto>;
  /** Push the session's branch (core `pushSessionBranch`). */
  gitPush(o: { sessionId: string }): Promise<{ ok: true; remote: string; branch: string; output: string; compareUrl: string | null } | GitRefusalDto>;
  /** The session's CLI drafts a commit message in a turn of its own (core `draftCommitMessage`). */
  draftCommitMessage(o: { sessionId: string; sourceKey: string }): Promise<DraftDto>;
  /** Once the session is closed, remove its worktree (core `removeWorktreeAfterClose`); `force`: lose uncommitted work. */
  removeWorktree(o: { sessionId: string; force?: boolean }): Promise<{ ok: true; removed: boolean } | GitRefusalDto>;
}

export interface BotDeps {
  db: Db;
  log: Logger;
  /** Telegram user ids served besides those in the settings row. */
  allowedUsers: ReadonlySet<number>;
  actions: SessionActions;
  /** Where files are downloaded from (`<apiRoot>/file/bot<token>/<path>`). */
  apiRoot: string;
  /** Called after the bot itself wrote outbox rows, so the sender looks at once. */
  wakeOutbox?: () => void;
  now?: () => Date;
  /** Largest attachment accepted; never above the protocol's MAX_ATTACHMENT_BYTES (512 KB). */
  maxAttachmentBytes?: number;
  /** The speech-to-text service for voice notes (docs/voice.md); absent: voice is kept as audio only. */
  transcribe?: TranscribeConfig;
  /**
   * False once long polling is stopping: an update not yet begun is then left alone, unhandled and
   * unconfirmed, so Telegram hands it over again at the next start. Absent: every update is handled.
   */
  accepting?: () => boolean;
}
