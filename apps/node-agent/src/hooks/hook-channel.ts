import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appendJsonLineDurably } from '../durable-file.ts';

/**
 * Where a permission request stands. `pending` waits for an answer; `answered` = the answer was
 * written to the hook; `delivered` = the hook confirmed it got it (it prints it to the CLI next);
 * `hook_gone` = the hook's connection closed before any answer (the CLI killed it, ended, or the
 * question was answered at the computer: the CLI does not say which); `expired` = the bound passed,
 * the question waits at the computer; `lost_on_restart` = the agent restarted while it was pending.
 */
export type PermissionState = 'pending' | 'answered' | 'delivered' | 'hook_gone' | 'expired' | 'lost_on_restart';

export interface PermissionAnswer {
  behavior: 'allow' | 'deny';
  /** Deny only: reaches the model as the tool's error result. */
  message?: string;
  alwaysAllow?: boolean;
  answers?: Record<string, string | string[]>;
}

export interface PermissionRecord {
  requestId: string;
  /** Bria's session id, from the per-session settings file. */
  sessionId: string;
  /** The CLI's own session id (`session_id` of the hook input). */
  nativeSessionId: string | null;
  toolName: string | null;
  toolInput: unknown;
  /** The hook's whole stdin JSON, as the CLI sent it. */
  request: Record<string, unknown>;
  hookPid: number | null;
  receivedAt: string;
  expiresAt: string;
  state: PermissionState;
  answer?: PermissionAnswer & { at: string };
  endedAt?: string;
  evidence?: string;
}

export type HookChannelEvent =
  | { type: 'permission_request'; record: PermissionRecord }
  | { type: 'permission_changed'; record: PermissionRecord };

export type AnswerResult =
  | { ok: true; record: PermissionRecord }
  | { ok: false; reason: 'unknown_request' | 'not_pending'; record?: PermissionRecord };

export interface HookChannelOptions {
  /** The channel's own folder inside the agent's data folder (made 0700). */
  dir: string;
  /** How long the hook waits for an answer before the question is left to the computer. */
  boundMs?: number;
}

export const DEFAULT_HOOK_BOUND_MS = 30 * 60_000;
// Unix socket paths are limited to 108 bytes on Linux (sun_path), including the final NUL.
const MAX_SOCKET_PATH = 107;
const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** The hook program Claude runs (plain JavaScript beside this file). */
export const permissionHookProgram = join(dirname(fileURLToPath(import.meta.url)), 'permission-hook.mjs');

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The hook's stdout for an answer (Claude Code 2.1.197, shared/notes/hooks.md "Answers"). */
export function permissionHookOutput(answer: PermissionAnswer): Record<string, unknown> {
  const decision =
    answer.behavior === 'allow'
      ? { behavior: 'allow' }
      : { behavior: 'deny', message: answer.message?.trim() ? answer.message : 'Denied by the user through Bria' };
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
}

/**
 * The agent's end of the permission hooks: a Unix socket (0600, in a 0700 folder) the hook program
 * connects to, one connection per request; the pending requests in memory, every change appended
 * durably to `permissions.jsonl`; an API to list and answer them.
 */
export class HookChannel {
  readonly dir: string;
  readonly socketPath: string;
  readonly boundMs: number;
  private readonly logFile: string;
  private readonly records = new Map<string, PermissionRecord>();
  private readonly sockets = new Map<string, Socket>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly listeners = new Set<(e: HookChannelEvent) => void>();
  private server: Server | null = null;
  private closing = false;

  constructor(opts: HookChannelOptions) {
    this.dir = opts.dir;
    this.socketPath = join(opts.dir, 'agent.sock');
    this.logFile = join(opts.dir, 'permissions.jsonl');
    this.boundMs = opts.boundMs ?? DEFAULT_HOOK_BOUND_MS;
    if (Buffer.byteLength(this.socketPath) > MAX_SOCKET_PATH) {
      throw new Error(`hook socket path too long for a Unix socket (${Buffer.byteLength(this.socketPath)} bytes): ${this.socketPath}`);
    }
  }

  /** Loads the record, closes what an earlier agent left pending, and listens. */
  async open(): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    this.load();
    for (const r of [...this.records.values()]) {
      if (r.state === 'pending') {
        this.change(r, { state: 'lost_on_restart', evidence: 'the agent restarted while the request was pending; its hook connection is gone' });
      }
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
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const s of this.sockets.values()) s.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * Writes the session's Claude settings file (passed with `--settings`, which Claude merges with
   * the user's own settings) and returns its path.
   */
  settingsFor(sessionId: string): string {
    if (!SAFE_ID.test(sessionId)) throw new Error(`unsafe session id for a settings file: ${JSON.stringify(sessionId)}`);
    const command = [process.execPath, permissionHookProgram, this.socketPath, sessionId, String(this.boundMs)].map(shellQuote).join(' ');
    // Claude kills a hook at its `timeout` (seconds); the hook gives up at the bound itself first.
    const timeout = Math.ceil(this.boundMs / 1000) + 30;
    const settings = { hooks: { PermissionRequest: [{ matcher: '*', hooks: [{ type: 'command', command, timeout }] }] } };
    const dir = join(this.dir, 'settings');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, `${sessionId}.json`);
    writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
    return file;
  }

  pending(sessionId?: string): PermissionRecord[] {
    return [...this.records.values()].filter((r) => r.state === 'pending' && (sessionId === undefined || r.sessionId === sessionId)).map((r) => ({ ...r }));
  }

  get(requestId: string): PermissionRecord | undefined {
    const r = this.records.get(requestId);
    return r ? { ...r } : undefined;
  }

  /** The first answer wins; a request that is not pending any more is refused with its state. */
  answer(requestId: string, answer: PermissionAnswer): AnswerResult {
    const r = this.records.get(requestId);
    if (!r) return { ok: false, reason: 'unknown_request' };
    const socket = this.sockets.get(requestId);
    if (r.state !== 'pending' || !socket || socket.destroyed) return { ok: false, reason: 'not_pending', record: { ...r } };
    const clean: PermissionAnswer = answer.behavior === 'deny' && answer.message ? { behavior: 'deny', message: answer.message } : { behavior: answer.behavior };
    this.change(r, { state: 'answered', answer: { ...clean, at: new Date().toISOString() } });
    socket.write(`${JSON.stringify({ type: 'answer', requestId, output: permissionHookOutput(clean) })}\n`);
    return { ok: true, record: { ...r } };
  }

  on(listener: (e: HookChannelEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first record (now or later) matching the predicate. */
  waitFor(predicate: (r: PermissionRecord) => boolean, timeoutMs: number): Promise<PermissionRecord> {
    return new Promise((resolve, reject) => {
      const hit = [...this.records.values()].find(predicate);
      if (hit) return resolve({ ...hit });
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no matching permission request within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on((e) => {
        if (!predicate(e.record)) return;
        clearTimeout(timer);
        off();
        resolve({ ...e.record });
      });
    });
  }

  private load(): void {
    if (!existsSync(this.logFile)) return;
    for (const line of readFileSync(this.logFile, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const r = JSON.parse(line) as PermissionRecord;
        if (typeof r.requestId === 'string') this.records.set(r.requestId, r);
      } catch {
        // a torn last line from a crash mid-append: the line before it is the record's state
      }
    }
  }

  private change(r: PermissionRecord, patch: Partial<PermissionRecord>): void {
    Object.assign(r, patch);
    if (r.state !== 'pending' && !r.endedAt) r.endedAt = new Date().toISOString();
    appendJsonLineDurably(this.logFile, r);
    if (r.state !== 'pending') {
      clearTimeout(this.timers.get(r.requestId));
      this.timers.delete(r.requestId);
    }
    this.emit({ type: 'permission_changed', record: { ...r } });
  }

  private emit(e: HookChannelEvent): void {
    for (const l of [...this.listeners]) l(e);
  }

  private accept(socket: Socket): void {
    let buffer = '';
    let requestId: string | null = null;
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        if (msg.type === 'permission_request' && requestId === null) requestId = this.received(socket, msg);
        else if (msg.type === 'delivered' && requestId !== null) {
          const r = this.records.get(requestId);
          if (r?.state === 'answered') this.change(r, { state: 'delivered', evidence: `hook pid ${String(r.hookPid)} acknowledged the answer` });
        }
      }
    });
    socket.on('close', () => {
      if (requestId === null || this.closing) return;
      this.sockets.delete(requestId);
      const r = this.records.get(requestId);
      if (r?.state !== 'pending') return;
      const expired = Date.now() >= Date.parse(r.expiresAt) - 1000;
      this.change(r, expired
        ? { state: 'expired', evidence: 'the hook gave up at its bound; the question waits at the computer' }
        : { state: 'hook_gone', evidence: 'the hook connection closed before an answer (the CLI ended or killed the hook, or the question was answered at the computer)' });
    });
  }

  private received(socket: Socket, msg: Record<string, unknown>): string | null {
    const sessionId = typeof msg.sessionId === 'string' ? msg.sessionId : null;
    const request = typeof msg.request === 'object' && msg.request !== null && !Array.isArray(msg.request) ? (msg.request as Record<string, unknown>) : null;
    if (!sessionId || !request) {
      socket.destroy();
      return null;
    }
    const now = Date.now();
    const r: PermissionRecord = {
      requestId: randomUUID(),
      sessionId,
      nativeSessionId: typeof request.session_id === 'string' ? request.session_id : null,
      toolName: typeof request.tool_name === 'string' ? request.tool_name : null,
      toolInput: request.tool_input ?? null,
      request,
      hookPid: typeof msg.hookPid === 'number' ? msg.hookPid : null,
      receivedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.boundMs).toISOString(),
      state: 'pending',
    };
    // Durable before anyone can see or answer it.
    appendJsonLineDurably(this.logFile, r);
    this.records.set(r.requestId, r);
    this.sockets.set(r.requestId, socket);
    this.timers.set(r.requestId, setTimeout(() => {
      if (r.state !== 'pending') return;
      this.change(r, { state: 'expired', evidence: `no answer within ${this.boundMs} ms; the question waits at the computer` });
      socket.end();
    }, this.boundMs));
    this.emit({ type: 'permission_request', record: { ...r } });
    return r.requestId;
  }
}
