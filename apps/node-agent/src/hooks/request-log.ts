import { existsSync, readFileSync } from 'node:fs';
import { appendJsonLineDurably, writeFileAtomically } from '../durable-file.ts';
import { type HookExecutor, type PermissionAnswer, requestKind } from './hook-answers.ts';
import type { PermissionRequestFrame } from './hook-wire.ts';

/**
 * Where a permission request stands on this computer. `pending` waits for an answer; `answered` = the
 * answer was written to the hook; `delivered` = the hook confirmed it got it (it prints it to the CLI
 * next); `hook_gone` = the hook's connection closed before any answer (the CLI killed it, ended, or the
 * question was answered at the computer: the CLI does not say which); `expired` = the bound passed or
 * the user left it to the computer; `lost_on_restart` = the agent restarted while it was open and its
 * hook did not come back. The end states are the outcomes of `permission_resolved` (core protocol).
 */
export const REQUEST_STATES = ['pending', 'answered', 'delivered', 'hook_gone', 'expired', 'lost_on_restart'] as const;
export type PermissionState = (typeof REQUEST_STATES)[number];

/**
 * `answer`: an answer was written to the hook (or waits for its reconnection); `ack`: the hook said it
 * has it; `hook_gone`: its connection closed first, or its dialog left the screen (answered at the
 * computer); `expire`: the bound passed, the hook gave up at it, or the user released it to the
 * computer; `lose`: after an agent restart the hook did not come back.
 */
export const REQUEST_EVENTS = ['answer', 'ack', 'hook_gone', 'expire', 'lose'] as const;
export type RequestEvent = (typeof REQUEST_EVENTS)[number];

/** A (state, event) pair not listed is no move: the record stays as it is. */
export const REQUEST_TABLE = {
  pending: { answer: 'answered', hook_gone: 'hook_gone', expire: 'expired', lose: 'lost_on_restart' },
  // The answer is written; only the hook's acknowledgement, or a restart it does not survive, ends it.
  answered: { ack: 'delivered', lose: 'lost_on_restart' },
  delivered: {},
  hook_gone: {},
  expired: {},
  lost_on_restart: {},
} as const satisfies Record<PermissionState, Partial<Record<RequestEvent, PermissionState>>>;

export function requestTransition(state: PermissionState, event: RequestEvent): PermissionState | null {
  const row: Partial<Record<RequestEvent, PermissionState>> = REQUEST_TABLE[state];
  return row[event] ?? null;
}

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
  /** The hook's stdin JSON as the CLI sent it (clipped by the hook), without `tool_input` (kept once, as `toolInput`). */
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

/** A new request from the hook's `permission_request` frame: pending until `boundMs` after `now`. */
export function newRecord(frame: PermissionRequestFrame, o: { requestId: string; now: number; boundMs: number }): PermissionRecord {
  const { tool_input: _input, ...rest } = frame.request;
  const request = frame.request;
  const toolName = typeof request.tool_name === 'string' ? request.tool_name : null;
  const description = (request.tool_input as { description?: unknown } | null)?.description;
  return {
    requestId: o.requestId,
    sessionId: frame.sessionId,
    nativeSessionId: typeof request.session_id === 'string' ? request.session_id : null,
    toolName,
    toolInput: request.tool_input ?? null,
    kind: requestKind(toolName),
    executor: frame.executor,
    // Claude's Bash `description` is the model's label of the command, shown with it; Codex's is
    // the justification the model gave for asking (docs/cli-facts.md).
    justification: frame.executor === 'codex' && typeof description === 'string' ? description : null,
    request: rest,
    hookPid: frame.hookPid,
    ...(frame.hookKey ? { hookKey: frame.hookKey } : {}),
    receivedAt: new Date(o.now).toISOString(),
    expiresAt: new Date(o.now + o.boundMs).toISOString(),
    state: 'pending',
  };
}

export type HookChannelEvent = { type: 'permission_request'; record: PermissionRecord } | { type: 'permission_changed'; record: PermissionRecord };

/** Past this size the file is rewritten with one line per kept request (`compact`). */
export const COMPACT_AT_BYTES = 1024 * 1024;
/** Ended requests kept by a compaction (the newest); open ones are always kept. */
export const KEEP_ENDED = 100;

/** A change line: only what moved (the request itself is in its first line, once). */
type ChangeLine = Pick<PermissionRecord, 'requestId' | 'state'> & Partial<Pick<PermissionRecord, 'endedAt' | 'evidence' | 'answer'>> & { change: true };

/**
 * The requests in memory, every change appended (fsync) to `permissions.jsonl` before anyone hears of
 * it: a request's first line holds it whole (its input as the hook clipped it), later lines only
 * what changed (state, evidence, answer). Past `COMPACT_AT_BYTES` the file is rewritten atomically
 * with one line per request, open ones and the newest `KEEP_ENDED` ended ones. Moves only by
 * `REQUEST_TABLE`.
 */
export class RequestLog {
  private readonly records = new Map<string, PermissionRecord>();
  private readonly listeners = new Set<(e: HookChannelEvent) => void>();
  private bytes = 0;

  constructor(
    private readonly file: string,
    private readonly now: () => number = Date.now,
    private readonly compactAt: number = COMPACT_AT_BYTES,
  ) {}

  load(): void {
    if (!existsSync(this.file)) return;
    const text = readFileSync(this.file, 'utf8');
    this.bytes = Buffer.byteLength(text);
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const r = JSON.parse(line) as PermissionRecord | ChangeLine;
        if (typeof r.requestId !== 'string') continue;
        if ('change' in r) {
          const { change: _change, ...patch } = r;
          const known = this.records.get(r.requestId);
          if (known) Object.assign(known, patch);
          continue;
        }
        // Records written before these fields existed were Claude's.
        r.kind ??= requestKind(r.toolName);
        r.executor ??= 'claude';
        r.justification ??= null;
        this.records.set(r.requestId, r);
      } catch {
        // a torn last line from a crash mid-append: the line before it is the record's state
      }
    }
    this.compactIfLarge();
  }

  /** The live record (the channel's own; callers outside get copies). */
  record(requestId: string): PermissionRecord | undefined {
    return this.records.get(requestId);
  }

  all(): PermissionRecord[] {
    return [...this.records.values()];
  }

  /** A new request, durable before anyone can see or answer it; `announce` tells the listeners. */
  add(r: PermissionRecord): void {
    this.append(r);
    this.records.set(r.requestId, r);
  }

  announce(r: PermissionRecord): void {
    this.emit({ type: 'permission_request', record: { ...r } });
  }

  /** A line of evidence that changes no state (a hook reconnected). */
  note(r: PermissionRecord, evidence: string): void {
    this.append({ requestId: r.requestId, state: r.state, evidence, change: true } satisfies ChangeLine);
  }

  /** Moves the record by the table (false, nothing written, when it lists no such move). */
  move(r: PermissionRecord, event: RequestEvent, patch: { evidence?: string; answer?: PermissionRecord['answer'] } = {}): boolean {
    const to = requestTransition(r.state, event);
    if (to === null) return false;
    Object.assign(r, patch, { state: to });
    if (!r.endedAt) r.endedAt = new Date(this.now()).toISOString();
    this.append({ requestId: r.requestId, state: to, endedAt: r.endedAt, ...patch, change: true } satisfies ChangeLine);
    this.emit({ type: 'permission_changed', record: { ...r } });
    this.compactIfLarge();
    return true;
  }

  /**
   * Rewrites the file (atomically) with one line per kept request, when it grew past its bound: every
   * open request, then the newest ended ones (at most `KEEP_ENDED`) while the file stays under half
   * the bound, so a compaction is not followed by another at the next line.
   */
  compactIfLarge(): void {
    if (this.bytes <= this.compactAt) return;
    const isOpen = (r: PermissionRecord) => r.state === 'pending' || r.state === 'answered';
    const all = [...this.records.values()];
    const lines = new Map(all.map((r) => [r.requestId, `${JSON.stringify(r)}\n`]));
    const keep = new Set(all.filter(isOpen).map((r) => r.requestId));
    let size = [...keep].reduce((n, id) => n + Buffer.byteLength(lines.get(id) ?? ''), 0);
    let ended = 0;
    for (const r of all.filter((x) => !isOpen(x)).reverse()) {
      const n = Buffer.byteLength(lines.get(r.requestId) ?? '');
      if (ended >= KEEP_ENDED || size + n > this.compactAt / 2) break;
      keep.add(r.requestId);
      size += n;
      ended++;
    }
    for (const id of [...this.records.keys()]) if (!keep.has(id)) this.records.delete(id);
    const text = [...this.records.keys()].map((id) => lines.get(id) ?? '').join('');
    writeFileAtomically(this.file, text);
    this.bytes = Buffer.byteLength(text);
  }

  private append(line: PermissionRecord | ChangeLine): void {
    appendJsonLineDurably(this.file, line);
    this.bytes += Buffer.byteLength(JSON.stringify(line)) + 1;
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

  private emit(e: HookChannelEvent): void {
    for (const l of [...this.listeners]) l(e);
  }
}
