import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeHookSettings, codexHookArgs, hookCommand } from './cli-hook-config.ts';
import type { HookExecutor, PermissionAnswer } from './hook-answers.ts';
import { serveHookConnection } from './hook-connection.ts';
import { type AnswerResult, HookRequests } from './hook-requests.ts';
import { hookLine, MAX_HOOK_LINE_BYTES } from './hook-wire.ts';
import { type HooksOffReason, SOCKET_NAME, secureChannelFolders } from './hooks-folder.ts';
import { inTree, kernelPeerPids } from './peer-check.ts';
import { type HookChannelEvent, type PermissionRecord, RequestLog } from './request-log.ts';
import { TypingGate } from './typing-gate.ts';

export type { AnswerResult } from './hook-requests.ts';
export type { HookChannelEvent, PermissionRecord, PermissionState } from './request-log.ts';
export type { HookExecutor, PermissionAnswer } from './hook-answers.ts';

export interface HookChannelOptions {
  /** The channel's own folder in the agent's data folder: its record and settings files (0700, checked). */
  dir: string;
  /** The socket's folder (`hooksFolder.socketFolder`); default `dir`; null: no private folder fits a socket path. */
  socketDir?: string | null;
  /** The root of a live session's CLI tree on this agent (its pane's process), or null: not a live session here. */
  sessionRoot: (sessionId: string) => number | null;
  /** How long the hook waits for an answer before the question is left to the computer. */
  boundMs?: number;
  /** After a restart: how long a request left pending waits for its hook to reconnect. */
  reattachMs?: number;
  /** The hook program's path; default `permission-hook.mjs` beside this file (the one-file agent writes its own copy). */
  program?: string;
  maxLineBytes?: number;
  /** Refused connections (reason and who), for the agent's log. */
  log?: (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => void;
}

export const DEFAULT_HOOK_BOUND_MS = 30 * 60_000;
/** The hook retries every 250 ms for 60 s (permission-hook.mjs); a live hook is back well within this. */
export const DEFAULT_REATTACH_MS = 15_000;

/** The hook program the CLIs run (plain JavaScript beside this file). */
export const permissionHookProgram = join(dirname(fileURLToPath(import.meta.url)), 'permission-hook.mjs');

/**
 * The agent's end of the permission hooks: a Unix socket (0600, in a checked 0700 folder) the hook
 * program connects to, one connection per request. By job: the wire `hook-wire.ts`, one connection's
 * checks `hook-connection.ts`, the open requests `hook-requests.ts`, their record `request-log.ts`,
 * the typing gate `typing-gate.ts`, the CLIs' configuration `cli-hook-config.ts`, the folder
 * `hooks-folder.ts`. A channel that could not be secured stays off (`offReason`): the CLIs then get
 * no hook settings and keep their own dialogs.
 */
export class HookChannel {
  readonly dir: string;
  readonly socketPath: string;
  readonly boundMs: number;
  readonly reattachMs: number;
  /** Why remote answers are off on this computer; null once the channel listens. */
  offReason: HooksOffReason | null = 'listen_failed';
  offDetail = 'the channel is not open yet';
  private readonly log: RequestLog;
  private readonly requests: HookRequests;
  private readonly gate = new TypingGate();
  private server: Server | null = null;
  private readonly socketDir: string | null;

  constructor(private readonly o: HookChannelOptions) {
    this.dir = o.dir;
    this.socketDir = o.socketDir === undefined ? o.dir : o.socketDir;
    this.socketPath = join(this.socketDir ?? o.dir, SOCKET_NAME);
    this.log = new RequestLog(join(o.dir, 'permissions.jsonl'));
    this.boundMs = o.boundMs ?? DEFAULT_HOOK_BOUND_MS;
    this.reattachMs = o.reattachMs ?? DEFAULT_REATTACH_MS;
    this.requests = new HookRequests(this.log, { boundMs: this.boundMs, reattachMs: this.reattachMs });
  }

  /** Whether the CLIs get hook settings: only a channel that listens in private folders. */
  get available(): boolean {
    return this.offReason === null;
  }

  /** Checks the folders, loads the record, closes what an earlier agent left pending, and listens. */
  async open(): Promise<void> {
    const off = (reason: HooksOffReason, detail: string) => {
      [this.offReason, this.offDetail] = [reason, detail];
      throw new Error(`remote answers are off: ${detail}`);
    };
    const folders = secureChannelFolders({ dir: this.dir, socketDir: this.socketDir, socketPath: this.socketPath });
    if (!folders.ok) return off(folders.reason, folders.detail);
    this.log.load();
    this.requests.restore();
    rmSync(this.socketPath, { force: true });
    const server = createServer((socket) => this.serve(socket));
    try {
      // The folder is 0700 (checked), so the socket is private before the chmod too.
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.socketPath, () => resolve()));
    } catch (err) {
      return off('listen_failed', (err as Error).message);
    }
    chmodSync(this.socketPath, 0o600);
    this.server = server;
    [this.offReason, this.offDetail] = [null, ''];
  }

  /** Stops listening; pending requests stay pending on disk, as after a crash (see `open`). */
  async close(): Promise<void> {
    this.requests.close();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Writes the session's Claude settings file (for `--settings`) and returns its path. */
  settingsFor(sessionId: string): string {
    const settings = claudeHookSettings(this.hookCommand(sessionId, 'claude'));
    const dir = join(this.dir, 'settings');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, `${sessionId}.json`);
    writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
    return file;
  }

  /** The `-c` overrides that give one Codex run Bria's hook, trusted (`codexHookArgs`); pass on every start and resume. */
  codexConfigArgs(sessionId: string): string[] {
    return codexHookArgs(this.hookCommand(sessionId, 'codex'));
  }

  private hookCommand(sessionId: string, executor: HookExecutor): { command: string; timeout: number } {
    const program = this.o.program ?? permissionHookProgram;
    return hookCommand({ node: process.execPath, program, socketPath: this.socketPath, sessionId, boundMs: this.boundMs, executor });
  }

  /** The typing gate (`TypingGate.begin`): why a follow-up may not be typed now, or null when typing began. */
  beginTyping(sessionId: string): string | null {
    return this.gate.begin(sessionId, this.pending(sessionId).length > 0);
  }
  endTyping = (sessionId: string): void => this.gate.end(sessionId);
  openToolCount = (sessionId: string): number => this.gate.openToolCount(sessionId);
  toolEnded = (sessionId: string, toolUseId: string): void => this.gate.toolEnded(sessionId, toolUseId);
  turnEnded = (sessionId: string): void => this.gate.turnEnded(sessionId);

  pending(sessionId?: string): PermissionRecord[] {
    return this.log
      .all()
      .filter((r) => r.state === 'pending' && (sessionId === undefined || r.sessionId === sessionId))
      .map((r) => ({ ...r }));
  }

  get(requestId: string): PermissionRecord | undefined {
    const r = this.log.record(requestId);
    return r ? { ...r } : undefined;
  }

  /** The dialog left the screen while its hook waits: answered at the computer (`hook_gone`, the hook told to end). */
  settleAtComputer = (requestId: string, evidence: string): boolean => this.requests.settleAtComputer(requestId, evidence);
  /** The user will answer at the computer: the hook ends without an answer, so the CLI shows its own dialog. */
  release = (requestId: string): AnswerResult => this.requests.release(requestId);
  answer = (requestId: string, answer: PermissionAnswer): AnswerResult => this.requests.answer(requestId, answer);

  on(listener: (e: HookChannelEvent) => void): () => void {
    return this.log.on(listener);
  }

  /** Resolves with the first record (now or later) matching the predicate. */
  waitFor(predicate: (r: PermissionRecord) => boolean, timeoutMs: number): Promise<PermissionRecord> {
    return this.log.waitFor(predicate, timeoutMs);
  }

  private serve(socket: Socket): void {
    serveHookConnection(socket, {
      maxLineBytes: this.o.maxLineBytes ?? MAX_HOOK_LINE_BYTES,
      sessionRoot: this.o.sessionRoot,
      peerPids: kernelPeerPids,
      inTree: (pid, root) => inTree(pid, root),
      request: (s, frame) => this.requests.received(s, frame),
      toolStart: (s, frame) =>
        this.gate.toolStarted(frame.sessionId, frame.toolUseId || `hook-${String(frame.hookPid)}`, () => {
          if (!s.destroyed) s.end(hookLine({ type: 'go' }));
        }),
      delivered: (requestId) => this.requests.delivered(requestId),
      closed: (requestId, s) => this.requests.closed(requestId, s),
      refused: (reason, fields) => this.o.log?.('warn', 'agent.hook_refused', { reason, ...fields }),
    });
  }
}
