import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerFits } from '@bria/core/protocol';
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
  /**
   * Allow only, Claude tool requests only: also allow matching calls for the rest of the CLI
   * session (a `session` rule, see `alwaysAllowRule`); Codex has no such answer from a hook.
   */
  alwaysAllow?: boolean;
  /**
   * Allow only, question requests only (Claude `AskUserQuestion`): the answer per question text;
   * several labels of a multi-select question as an array (given to Claude joined by ", ").
   */
  answers?: Record<string, string | string[]>;
}

/** Which CLI asked; written into the hook command by the settings writer. */
export type HookExecutor = 'claude' | 'codex';

export interface PermissionRecord {
  requestId: string;
  /** Bria's session id, from the per-session settings file. */
  sessionId: string;
  /** The CLI's own session id (`session_id` of the hook input). */
  nativeSessionId: string | null;
  toolName: string | null;
  toolInput: unknown;
  /** `question`: the agent asks the user (Claude `AskUserQuestion`); `tool`: a tool wants to run. */
  kind: 'tool' | 'question';
  executor: HookExecutor;
  /** The model's reason for the request where the CLI gives one (Codex `tool_input.description`). */
  justification: string | null;
  /** The hook's whole stdin JSON, as the CLI sent it. */
  request: Record<string, unknown>;
  hookPid: number | null;
  /** The hook's own key, the same on every connection it makes (it reconnects after an agent restart). */
  hookKey?: string;
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
/** Claude's timeout (seconds) for the PreToolUse gate; the program gives up after 10 s itself. */
const TOOL_GATE_TIMEOUT_S = 30;
/** A tool call whose end the journal never showed stops holding messages back after this long. */
export const OPEN_TOOL_BOUND_MS = 10 * 60_000;
/** The hook retries every 250 ms for 60 s (permission-hook.mjs); a live hook is back well within this. */
export const DEFAULT_REATTACH_MS = 15_000;
// Unix socket paths are limited to 108 bytes on Linux (sun_path), including the final NUL.
const MAX_SOCKET_PATH = 107;
const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** The hook program Claude runs (plain JavaScript beside this file). */
export const permissionHookProgram = join(dirname(fileURLToPath(import.meta.url)), 'permission-hook.mjs');

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Tool names that are the agent asking the user, per CLI (Codex: if it ever sends one here). */
const QUESTION_TOOLS = new Set(['AskUserQuestion', 'request_user_input']);

function requestKind(toolName: string | null): PermissionRecord['kind'] {
  return toolName !== null && QUESTION_TOOLS.has(toolName) ? 'question' : 'tool';
}

/**
 * The session rule an always-allow adds (Claude `updatedPermissions` `addRules`, destination
 * `session`): for Bash the command's first word as a prefix rule `<word>:*` (later `npm …` calls
 * run, other programs still ask); for any other tool the tool name alone (every later call of
 * that tool in the session runs unasked, e.g. every Write).
 */
export function alwaysAllowRule(toolName: string, toolInput: unknown): { toolName: string; ruleContent?: string } {
  if (toolName !== 'Bash') return { toolName };
  const command = (toolInput as { command?: unknown } | null)?.command;
  const word = typeof command === 'string' ? command.trim().split(/\s+/)[0] : '';
  return word ? { toolName, ruleContent: `${word}:*` } : { toolName };
}

/** Why an answer cannot be given to this request (core's `answerFits`, in words), or null when it fits. */
function unsupported(r: PermissionRecord, a: PermissionAnswer): string | null {
  const target = { alwaysAllow: r.executor === 'claude' && r.kind === 'tool' && r.toolName !== null, answers: r.kind === 'question' && r.executor === 'claude' };
  const misfit = answerFits(target, { allow: a.behavior === 'allow', alwaysAllow: a.alwaysAllow === true, answers: a.answers !== undefined });
  switch (misfit) {
    case null:
      return null;
    case 'always_allow_not_allow':
      return 'always-allow is an allow';
    case 'always_allow_not_offered':
      return r.executor !== 'claude' ? `${r.executor} takes no always-allow from a hook` : 'always-allow is for tool requests';
    case 'answers_need_allow':
      return 'answers are given with allow';
    case 'answers_not_taken':
      return 'answers are for Claude questions';
    default:
      return misfit satisfies never;
  }
}

/**
 * The hook's stdout for an answer (Claude Code 2.1.197 and Codex 0.171, shared/notes/hooks.md
 * "Answers"; the always-allow and question shapes are Claude's and checked in
 * permission-answers-claude.test.ts). `request` is the record the answer is for.
 */
export function permissionHookOutput(answer: PermissionAnswer, request?: Pick<PermissionRecord, 'toolName' | 'toolInput'>): Record<string, unknown> {
  let decision: Record<string, unknown>;
  if (answer.behavior === 'deny') {
    decision = { behavior: 'deny', message: answer.message?.trim() ? answer.message : 'Denied by the user through Bria' };
  } else if (answer.answers && request) {
    const questions = (request.toolInput as { questions?: unknown } | null)?.questions ?? [];
    // Claude takes one string per question; the labels of a multi-select answer are joined by ", "
    // and reach the model as `"<question>"="Cheese, Olives"` (permission-answers-claude.test.ts).
    const answers = Object.fromEntries(Object.entries(answer.answers).map(([q, a]) => [q, Array.isArray(a) ? a.join(', ') : a]));
    decision = { behavior: 'allow', updatedInput: { questions, answers } };
  } else if (answer.alwaysAllow && request?.toolName) {
    const rule = alwaysAllowRule(request.toolName, request.toolInput);
    decision = { behavior: 'allow', updatedPermissions: [{ type: 'addRules', rules: [rule], behavior: 'allow', destination: 'session' }] };
  } else {
    decision = { behavior: 'allow' };
  }
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
}

/** Canonical JSON (object keys sorted), the form Codex hashes a hook definition in. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Codex's trust hash of one command hook without matcher (`sha256:` over the canonical JSON of the
 * event's snake_case name and the handler with its defaults), as Codex 0.171 writes it into
 * `hooks.state` when the user trusts the hook; checked against the real binary in
 * permission-hooks-codex.test.ts (a wrong hash: the hook does not run).
 */
export function codexHookTrustHash(eventName: string, command: string, timeoutSec: number): string {
  const identity = { event_name: eventName, hooks: [{ async: false, command, timeout: timeoutSec, type: 'command' }] };
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

// The synthetic source path Codex gives hooks from `-c` overrides in its trust keys.
const CODEX_SESSION_FLAGS_SOURCE = '/<session-flags>/config.toml';

/**
 * The agent's end of the permission hooks: a Unix socket (0600, in a 0700 folder) the hook program
 * connects to, one connection per request; the pending requests in memory, every change appended
 * durably to `permissions.jsonl`; an API to list and answer them.
 */
export class HookChannel {
  readonly dir: string;
  readonly socketPath: string;
  readonly boundMs: number;
  readonly reattachMs: number;
  private readonly logFile: string;
  /** Requests loaded pending (or answered, not delivered) after a restart, until their hook reconnects. */
  private readonly detached = new Set<string>();
  private readonly records = new Map<string, PermissionRecord>();
  private readonly sockets = new Map<string, Socket>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly listeners = new Set<(e: HookChannelEvent) => void>();
  private server: Server | null = null;
  private closing = false;
  private readonly program: string;
  /** Claude tool calls whose PreToolUse hook reached the agent and whose end was not seen yet, per session. */
  private readonly openTools = new Map<string, Map<string, number>>();
  /** Sessions being typed into now, with the PreToolUse hooks that wait for the typing to end. */
  private readonly typing = new Map<string, Socket[]>();

  constructor(opts: HookChannelOptions) {
    this.dir = opts.dir;
    this.socketPath = join(opts.dir, 'agent.sock');
    this.logFile = join(opts.dir, 'permissions.jsonl');
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
    this.load();
    // A hook still waiting reconnects with its key (permission-hook.mjs): its request stays as it
    // was. One that does not come back within `reattachMs` is gone with the earlier agent.
    for (const r of [...this.records.values()]) {
      if (r.state !== 'pending' && r.state !== 'answered') continue;
      if (!r.hookKey) {
        this.change(r, { state: 'lost_on_restart', evidence: 'the agent restarted while the request was pending; its hook connection is gone' });
        continue;
      }
      this.detached.add(r.requestId);
      this.timers.set(r.requestId, setTimeout(() => {
        if (!this.detached.delete(r.requestId)) return;
        this.change(r, { state: 'lost_on_restart', evidence: `the agent restarted and the hook did not reconnect within ${this.reattachMs} ms${r.state === 'answered' ? ' (the answer did not reach it)' : ''}` });
      }, this.reattachMs));
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

  /**
   * Writes the session's Claude settings file (passed with `--settings`, which Claude merges with
   * the user's own settings) and returns its path.
   */
  settingsFor(sessionId: string): string {
    const { command, timeout } = this.hookCommand(sessionId, 'claude');
    // PreToolUse: the same program as the typing gate (see `beginTyping`); it never decides anything.
    const settings = {
      hooks: {
        PermissionRequest: [{ matcher: '*', hooks: [{ type: 'command', command, timeout }] }],
        PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command, timeout: TOOL_GATE_TIMEOUT_S }] }],
      },
    };
    const dir = join(this.dir, 'settings');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, `${sessionId}.json`);
    writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
    return file;
  }

  /**
   * The `-c` overrides that give one Codex run Bria's PermissionRequest hook, trusted, without
   * touching the user's `config.toml` or `hooks.json` (whose hooks keep running beside it): the
   * hook in the `-c` layer, and its trust entry in `hooks.state` keyed the way Codex keys hooks
   * of that layer. Pass on every start and resume.
   */
  codexConfigArgs(sessionId: string): string[] {
    const { command, timeout } = this.hookCommand(sessionId, 'codex');
    const key = `${CODEX_SESSION_FLAGS_SOURCE}:permission_request:0:0`;
    const hash = codexHookTrustHash('permission_request', command, timeout);
    return [
      '-c', `hooks.PermissionRequest=[{hooks=[{type="command",command=${JSON.stringify(command)},timeout=${timeout}}]}]`,
      '-c', `hooks.state={${JSON.stringify(key)}={trusted_hash=${JSON.stringify(hash)}}}`,
    ];
  }

  /** The hook's shell command and the CLI's `timeout` (seconds) for it. */
  private hookCommand(sessionId: string, executor: HookExecutor): { command: string; timeout: number } {
    if (!SAFE_ID.test(sessionId)) throw new Error(`unsafe session id for hook settings: ${JSON.stringify(sessionId)}`);
    const command = [process.execPath, this.program, this.socketPath, sessionId, String(this.boundMs), executor].map(shellQuote).join(' ');
    // The CLI kills a hook at its `timeout` (seconds); the hook gives up at the bound itself first.
    return { command, timeout: Math.ceil(this.boundMs / 1000) + 30 };
  }

  /**
   * The typing gate for a message typed into a session whose turn is running (a follow-up): Claude
   * draws a permission or question dialog only after its PreToolUse hook returns, and a paste + Enter
   * on that dialog answers it with its first choice and loses the text (hooks.md §3). So typing may
   * begin only while no tool call of the session is open (its PreToolUse seen, its end not yet) and
   * no request is pending; while it lasts, every PreToolUse hook of the session waits for `endTyping`.
   * Returns why typing may not begin, or null when it began.
   */
  beginTyping(sessionId: string): string | null {
    if (this.typing.has(sessionId)) return 'another message is being typed';
    if (this.pending(sessionId).length > 0) return 'a permission request is waiting for an answer';
    const open = this.openTools.get(sessionId);
    if (open) {
      for (const [id, at] of open) if (Date.now() - at > OPEN_TOOL_BOUND_MS) open.delete(id);
      if (open.size > 0) return 'a tool call is in progress (it may still ask for permission)';
    }
    this.typing.set(sessionId, []);
    return null;
  }

  /** The typing ended (the CLI took the Enter): the tool calls that waited go on. */
  endTyping(sessionId: string): void {
    const waiting = this.typing.get(sessionId) ?? [];
    this.typing.delete(sessionId);
    for (const socket of waiting) if (!socket.destroyed) socket.end(`${JSON.stringify({ type: 'go' })}\n`);
  }

  /** Tool calls of the session whose PreToolUse reached the agent and whose end was not seen. */
  openToolCount(sessionId: string): number {
    return this.openTools.get(sessionId)?.size ?? 0;
  }

  /** The journal shows the tool call's result: it can ask nothing any more. */
  toolEnded(sessionId: string, toolUseId: string): void {
    this.openTools.get(sessionId)?.delete(toolUseId);
  }

  /** The turn ended (or the CLI is gone): no tool call of it is open. */
  turnEnded(sessionId: string): void {
    this.openTools.delete(sessionId);
  }

  private toolStarted(socket: Socket, msg: Record<string, unknown>): void {
    const sessionId = typeof msg.sessionId === 'string' ? msg.sessionId : null;
    if (!sessionId) {
      socket.destroy();
      return;
    }
    const toolUseId = typeof msg.toolUseId === 'string' && msg.toolUseId ? msg.toolUseId : `hook-${String(msg.hookPid)}`;
    const open = this.openTools.get(sessionId) ?? new Map<string, number>();
    this.openTools.set(sessionId, open);
    open.set(toolUseId, Date.now());
    const waiting = this.typing.get(sessionId);
    if (waiting) waiting.push(socket);
    else socket.end(`${JSON.stringify({ type: 'go' })}\n`);
  }

  pending(sessionId?: string): PermissionRecord[] {
    return [...this.records.values()].filter((r) => r.state === 'pending' && (sessionId === undefined || r.sessionId === sessionId)).map((r) => ({ ...r }));
  }

  get(requestId: string): PermissionRecord | undefined {
    const r = this.records.get(requestId);
    return r ? { ...r } : undefined;
  }

  /**
   * A request whose dialog is no longer on the CLI's screen while its hook still waits: it was
   * answered at the computer (Claude does not end the hook then; seen in chaos seed 20005). Ended as
   * `hook_gone` with the evidence, and the hook is told to end without printing anything.
   */
  settleAtComputer(requestId: string, evidence: string): boolean {
    const r = this.records.get(requestId);
    if (!r || r.state !== 'pending') return false;
    this.detached.delete(requestId);
    this.change(r, { state: 'hook_gone', evidence });
    const socket = this.sockets.get(requestId);
    if (socket && !socket.destroyed) socket.end(`${JSON.stringify({ type: 'end', requestId, state: 'hook_gone' })}\n`);
    return true;
  }

  /**
   * The user will answer at the computer: the hook is told to end without an answer, so the CLI shows
   * its own dialog (Codex shows it only once the hook ended). Reported like a passed bound (`expired`).
   */
  release(requestId: string): AnswerResult {
    const r = this.records.get(requestId);
    if (!r) return { ok: false, reason: 'unknown_request' };
    const socket = this.sockets.get(requestId);
    if (r.state !== 'pending') return { ok: false, reason: 'not_pending', record: { ...r } };
    this.detached.delete(requestId);
    this.change(r, { state: 'expired', evidence: 'released by the user: the question waits at the computer' });
    if (socket && !socket.destroyed) socket.end(`${JSON.stringify({ type: 'end', requestId, state: 'released' })}\n`);
    return { ok: true, record: { ...r } };
  }

  answer(requestId: string, answer: PermissionAnswer): AnswerResult {
    const r = this.records.get(requestId);
    if (!r) return { ok: false, reason: 'unknown_request' };
    const socket = this.sockets.get(requestId);
    const waitingForHook = this.detached.has(requestId);
    if (r.state !== 'pending' || (!waitingForHook && (!socket || socket.destroyed))) return { ok: false, reason: 'not_pending', record: { ...r } };
    const refusal = unsupported(r, answer);
    if (refusal) return { ok: false, reason: 'unsupported', detail: refusal, record: { ...r } };
    const clean: PermissionAnswer = { behavior: answer.behavior };
    if (answer.behavior === 'deny' && answer.message) clean.message = answer.message;
    if (answer.alwaysAllow) clean.alwaysAllow = true;
    if (answer.answers) clean.answers = answer.answers;
    this.change(r, { state: 'answered', answer: { ...clean, at: new Date().toISOString() } });
    // A request whose hook has not reconnected yet after a restart gets its answer when it does.
    if (socket && !socket.destroyed) this.sendAnswer(socket, r);
    return { ok: true, record: { ...r } };
  }

  private sendAnswer(socket: Socket, r: PermissionRecord): void {
    if (!r.answer) return;
    const { at: _at, ...answer } = r.answer;
    socket.write(`${JSON.stringify({ type: 'answer', requestId: r.requestId, output: permissionHookOutput(answer, r) })}\n`);
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
        if (typeof r.requestId !== 'string') continue;
        // Records written before these fields existed were Claude's.
        r.kind ??= requestKind(r.toolName);
        r.executor ??= 'claude';
        r.justification ??= null;
        this.records.set(r.requestId, r);
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
        if (msg.type === 'tool_start' && requestId === null) {
          this.toolStarted(socket, msg);
          return;
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
      if (this.sockets.get(requestId) !== socket) return;
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
    const hookKey = typeof msg.hookKey === 'string' && SAFE_ID.test(msg.hookKey) ? msg.hookKey : undefined;
    const known = hookKey ? [...this.records.values()].find((x) => x.hookKey === hookKey && x.sessionId === sessionId) : undefined;
    if (known) return this.reattach(socket, known);
    const now = Date.now();
    const toolName = typeof request.tool_name === 'string' ? request.tool_name : null;
    const executor: HookExecutor = msg.executor === 'codex' ? 'codex' : 'claude';
    const description = (request.tool_input as { description?: unknown } | null)?.description;
    const r: PermissionRecord = {
      requestId: randomUUID(),
      sessionId,
      nativeSessionId: typeof request.session_id === 'string' ? request.session_id : null,
      toolName,
      toolInput: request.tool_input ?? null,
      kind: requestKind(toolName),
      executor,
      // Claude's Bash `description` is the model's label of the command, shown with it; Codex's is
      // the justification the model gave for asking (shared/notes/hooks.md).
      justification: executor === 'codex' && typeof description === 'string' ? description : null,
      request,
      hookPid: typeof msg.hookPid === 'number' ? msg.hookPid : null,
      ...(hookKey ? { hookKey } : {}),
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

  /** A hook that waited through an agent restart is back: same request, same dialog. */
  private reattach(socket: Socket, r: PermissionRecord): string | null {
    if (!this.detached.delete(r.requestId) || (r.state !== 'pending' && r.state !== 'answered')) {
      // Its request ended meanwhile (it waits at the computer now): nothing to print.
      socket.end(`${JSON.stringify({ type: 'end', requestId: r.requestId, state: r.state })}\n`);
      return null;
    }
    clearTimeout(this.timers.get(r.requestId));
    this.sockets.set(r.requestId, socket);
    appendJsonLineDurably(this.logFile, { ...r, evidence: 'the hook reconnected after an agent restart' });
    const left = Date.parse(r.expiresAt) - Date.now();
    this.timers.set(r.requestId, setTimeout(() => {
      if (r.state !== 'pending') return;
      this.change(r, { state: 'expired', evidence: `no answer within ${this.boundMs} ms; the question waits at the computer` });
      socket.end();
    }, Math.max(0, left)));
    if (r.state === 'answered') this.sendAnswer(socket, r);
    return r.requestId;
  }
}
