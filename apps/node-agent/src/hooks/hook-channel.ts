import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeHookSettings, codexHookArgs, hookCommand } from './cli-hook-config.ts';
import { answerRefusal, cleanAnswer, type HookExecutor, type PermissionAnswer, permissionHookOutput } from './hook-answers.ts';
import { type AgentToHookFrame, hookLine, type PermissionRequestFrame, parseHookLine } from './hook-wire.ts';
import { type HookChannelEvent, newRecord, type PermissionRecord, RequestLog, type RequestEvent } from './request-log.ts';
import { TypingGate } from './typing-gate.ts';

export type { HookChannelEvent, PermissionRecord, PermissionState } from './request-log.ts';
export type { HookExecutor, PermissionAnswer } from './hook-answers.ts';

export type AnswerResult =
  | { ok: true; record: PermissionRecord }
  | { ok: false; reason: 'unknown_request' | 'not_pending'; record?: PermissionRecord }
  /** The answer does not fit the request (always-allow for Codex or a question, answers for a tool…). */
  | { ok: false; reason: 'unsupported'; detail: string; record: PermissionRecord };

export interface HookChannelOptions {
  /** The channel's own folder inside the agent's data folder (made 0700). */
  dir: string;
  /** How long the hook waits for an answer before the question is left to the computer. */
  boundMs?: number;
  /** After a restart: how long a request left pending waits for its hook to reconnect. */
  reattachMs?: number;
  /** The hook program's path; default `permission-hook.mjs` beside this file (the one-file agent writes its own copy). */
  program?: string;
}

export const DEFAULT_HOOK_BOUND_MS = 30 * 60_000;
/** The hook retries every 250 ms for 60 s (permission-hook.mjs); a live hook is back well within this. */
export const DEFAULT_REATTACH_MS = 15_000;
// Unix socket paths are limited to 108 bytes on Linux (sun_path), including the final NUL.
const MAX_SOCKET_PATH = 107;

/** The hook program the CLIs run (plain JavaScript beside this file). */
export const permissionHookProgram = join(dirname(fileURLToPath(import.meta.url)), 'permission-hook.mjs');

/**
 * The agent's end of the permission hooks: a Unix socket (0600, in a 0700 folder) the hook program
 * connects to, one connection per request (frames: `hook-wire.ts`). The requests and their states are
 * the `RequestLog`'s, the typing gate is `TypingGate`, the CLIs' configuration `cli-hook-config.ts`;
 * this class holds the sockets and the timers.
 */
export class HookChannel {
  readonly dir: string;
  readonly socketPath: string;
  readonly boundMs: number;
  readonly reattachMs: number;
  private readonly log: RequestLog;
  private readonly gate = new TypingGate();
  /** Requests loaded pending (or answered, not delivered) after a restart, until their hook reconnects. */
  private readonly detached = new Set<string>();
  private readonly sockets = new Map<string, Socket>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private server: Server | null = null;
  private closing = false;
  private readonly program: string;

  constructor(opts: HookChannelOptions) {
    this.dir = opts.dir;
    this.socketPath = join(opts.dir, 'agent.sock');
    this.log = new RequestLog(join(opts.dir, 'permissions.jsonl'));
    this.boundMs = opts.boundMs ?? DEFAULT_HOOK_BOUND_MS;
    this.reattachMs = opts.reattachMs ?? DEFAULT_REATTACH_MS;
    this.program = opts.program ?? permissionHookProgram;
    if (Buffer.byteLength(this.socketPath) > MAX_SOCKET_PATH) {
      throw new Error(`hook socket path too long for a Unix socket (${Buffer.byteLength(this.socketPath)} bytes): ${this.socketPath}`);
    }
  }

  /** Loads the record, closes what an earlier agent left pending, and listens. */
  async open(): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    this.log.load();
    // A hook still waiting reconnects with its key (permission-hook.mjs): its request stays as it
    // was. One that does not come back within `reattachMs` is gone with the earlier agent.
    for (const r of this.log.all()) {
      if (r.state !== 'pending' && r.state !== 'answered') continue;
      if (!r.hookKey) {
        this.move(r, 'lose', 'the agent restarted while the request was pending; its hook connection is gone');
        continue;
      }
      this.detached.add(r.requestId);
      this.timers.set(
        r.requestId,
        setTimeout(() => {
          if (!this.detached.delete(r.requestId)) return;
          this.move(
            r,
            'lose',
            `the agent restarted and the hook did not reconnect within ${this.reattachMs} ms${r.state === 'answered' ? ' (the answer did not reach it)' : ''}`,
          );
        }, this.reattachMs),
      );
    }
    rmSync(this.socketPath, { force: true });
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // The folder is 0700 already, so the socket is private also before the chmod.
      server.listen(this.socketPath, () => resolve());
    });
    chmodSync(this.socketPath, 0o600);
    this.server = server;
  }

  /** Stops listening; pending requests stay pending on disk, as after a crash (see `open`). */
  async close(): Promise<void> {
    this.closing = true;
    this.detached.clear();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const s of this.sockets.values()) s.destroy();
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
    return hookCommand({ node: process.execPath, program: this.program, socketPath: this.socketPath, sessionId, boundMs: this.boundMs, executor });
  }

  /** The typing gate (`TypingGate.begin`): why a follow-up may not be typed now, or null when typing began. */
  beginTyping(sessionId: string): string | null {
    return this.gate.begin(sessionId, this.pending(sessionId).length > 0);
  }

  endTyping(sessionId: string): void {
    this.gate.end(sessionId);
  }

  openToolCount(sessionId: string): number {
    return this.gate.openToolCount(sessionId);
  }

  toolEnded(sessionId: string, toolUseId: string): void {
    this.gate.toolEnded(sessionId, toolUseId);
  }

  turnEnded(sessionId: string): void {
    this.gate.turnEnded(sessionId);
  }

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

  /**
   * A request whose dialog is no longer on the CLI's screen while its hook still waits: it was
   * answered at the computer (Claude does not end the hook then; docs/hooks-channel.md, the typing
   * gate). Ended as `hook_gone` with the evidence, and the hook is told to end without printing.
   */
  settleAtComputer(requestId: string, evidence: string): boolean {
    const r = this.log.record(requestId);
    if (r?.state !== 'pending') return false;
    this.detached.delete(requestId);
    this.move(r, 'hook_gone', evidence);
    this.endHook(requestId, { type: 'end', requestId, state: 'hook_gone' });
    return true;
  }

  /**
   * The user will answer at the computer: the hook is told to end without an answer, so the CLI shows
   * its own dialog (Codex shows it only once the hook ended). Reported like a passed bound (`expired`).
   */
  release(requestId: string): AnswerResult {
    const r = this.log.record(requestId);
    if (!r) return { ok: false, reason: 'unknown_request' };
    if (r.state !== 'pending') return { ok: false, reason: 'not_pending', record: { ...r } };
    this.detached.delete(requestId);
    this.move(r, 'expire', 'released by the user: the question waits at the computer');
    this.endHook(requestId, { type: 'end', requestId, state: 'released' });
    return { ok: true, record: { ...r } };
  }

  answer(requestId: string, answer: PermissionAnswer): AnswerResult {
    const r = this.log.record(requestId);
    if (!r) return { ok: false, reason: 'unknown_request' };
    const socket = this.sockets.get(requestId);
    const waitingForHook = this.detached.has(requestId);
    if (r.state !== 'pending' || (!waitingForHook && (!socket || socket.destroyed))) return { ok: false, reason: 'not_pending', record: { ...r } };
    const refusal = answerRefusal(r, answer);
    if (refusal) return { ok: false, reason: 'unsupported', detail: refusal, record: { ...r } };
    this.move(r, 'answer', { answer: { ...cleanAnswer(answer), at: new Date().toISOString() } });
    // A request whose hook has not reconnected yet after a restart gets its answer when it does.
    if (socket && !socket.destroyed) this.sendAnswer(socket, r);
    return { ok: true, record: { ...r } };
  }

  on(listener: (e: HookChannelEvent) => void): () => void {
    return this.log.on(listener);
  }

  /** Resolves with the first record (now or later) matching the predicate. */
  waitFor(predicate: (r: PermissionRecord) => boolean, timeoutMs: number): Promise<PermissionRecord> {
    return this.log.waitFor(predicate, timeoutMs);
  }

  /** A move by the log's table; an ended request has no timer any more. */
  private move(r: PermissionRecord, event: RequestEvent, change: string | Pick<PermissionRecord, 'answer'>): void {
    if (!this.log.move(r, event, typeof change === 'string' ? { evidence: change } : change)) return;
    clearTimeout(this.timers.get(r.requestId));
    this.timers.delete(r.requestId);
  }

  private endHook(requestId: string, frame: AgentToHookFrame): void {
    const socket = this.sockets.get(requestId);
    if (socket && !socket.destroyed) socket.end(hookLine(frame));
  }

  private sendAnswer(socket: Socket, r: PermissionRecord): void {
    if (!r.answer) return;
    const { at: _at, ...answer } = r.answer;
    socket.write(hookLine({ type: 'answer', requestId: r.requestId, output: permissionHookOutput(answer, r) }));
  }

  /** The bound of a request whose hook is connected: it then waits at the computer. */
  private armBound(r: PermissionRecord, socket: Socket, ms: number): void {
    this.timers.set(
      r.requestId,
      setTimeout(() => {
        if (r.state !== 'pending') return;
        this.move(r, 'expire', `no answer within ${this.boundMs} ms; the question waits at the computer`);
        socket.end();
      }, ms),
    );
  }

  private accept(socket: Socket): void {
    let buffer = '';
    let requestId: string | null = null;
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const frame = parseHookLine(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (frame === 'skip') continue;
        if (frame === 'bad') {
          // A known frame with a broken body opens nothing (an answer already written stays).
          if (requestId === null) {
            socket.destroy();
            return;
          }
          continue;
        }
        if (frame.type === 'tool_start' && requestId === null) {
          const toolUseId = frame.toolUseId || `hook-${String(frame.hookPid)}`;
          this.gate.toolStarted(frame.sessionId, toolUseId, () => {
            if (!socket.destroyed) socket.end(hookLine({ type: 'go' }));
          });
          return;
        }
        if (frame.type === 'permission_request' && requestId === null) requestId = this.received(socket, frame);
        else if (frame.type === 'delivered' && requestId !== null) {
          const r = this.log.record(requestId);
          if (r) this.move(r, 'ack', `hook pid ${String(r.hookPid)} acknowledged the answer`);
        }
      }
    });
    socket.on('close', () => {
      if (requestId === null || this.closing) return;
      if (this.sockets.get(requestId) !== socket) return;
      this.sockets.delete(requestId);
      const r = this.log.record(requestId);
      if (r?.state !== 'pending') return;
      const expired = Date.now() >= Date.parse(r.expiresAt) - 1000;
      if (expired) this.move(r, 'expire', 'the hook gave up at its bound; the question waits at the computer');
      else
        this.move(
          r,
          'hook_gone',
          'the hook connection closed before an answer (the CLI ended or killed the hook, or the question was answered at the computer)',
        );
    });
  }

  private received(socket: Socket, msg: PermissionRequestFrame): string | null {
    const { sessionId, hookKey } = msg;
    const known = hookKey ? this.log.all().find((x) => x.hookKey === hookKey && x.sessionId === sessionId) : undefined;
    if (known) return this.reattach(socket, known);
    const r = newRecord(msg, { requestId: randomUUID(), now: Date.now(), boundMs: this.boundMs });
    // Durable before anyone can see or answer it.
    this.log.add(r);
    this.sockets.set(r.requestId, socket);
    this.armBound(r, socket, this.boundMs);
    this.log.announce(r);
    return r.requestId;
  }

  /** A hook that waited through an agent restart is back: same request, same dialog. */
  private reattach(socket: Socket, r: PermissionRecord): string | null {
    if (!this.detached.delete(r.requestId) || (r.state !== 'pending' && r.state !== 'answered')) {
      // Its request ended meanwhile (it waits at the computer now): nothing to print.
      socket.end(hookLine({ type: 'end', requestId: r.requestId, state: r.state }));
      return null;
    }
    clearTimeout(this.timers.get(r.requestId));
    this.sockets.set(r.requestId, socket);
    this.log.note(r, 'the hook reconnected after an agent restart');
    this.armBound(r, socket, Math.max(0, Date.parse(r.expiresAt) - Date.now()));
    if (r.state === 'answered') this.sendAnswer(socket, r);
    return r.requestId;
  }
}
