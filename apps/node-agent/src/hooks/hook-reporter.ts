import type { AnswerPermissionPayload, CommandAnswer } from '@bria/core/protocol';
import type { AgentEventOut } from '../hub-client/hub-client.ts';
import { alwaysAllowRule, requestKind } from './hook-answers.ts';
import type { HookChannel, PermissionAnswer, PermissionRecord } from './hook-channel.ts';

/** Room for a tool's input in one event (protocol zPermissionRequest: 64,000 characters). */
const MAX_INPUT_CHARS = 60_000;

export interface HookReporterOptions {
  channel: HookChannel;
  emit: (e: AgentEventOut) => void;
  /** The session's current observer generation on this agent (its registry), or null when unknown. */
  generationOf: (sessionId: string) => number | null;
  log: (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => void;
}

/** A tool's input cut to what one event carries: long strings (a file's new content) are clipped, never dropped. */
export function boundToolInput(input: unknown): Record<string, unknown> {
  const obj = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : { value: input ?? null };
  if (JSON.stringify(obj).length <= MAX_INPUT_CHARS) return obj;
  let limit = 8_000;
  for (;;) {
    const clip = (v: unknown): unknown => {
      if (typeof v === 'string') return v.length > limit ? `${v.slice(0, limit)}… [${v.length - limit} more characters]` : v;
      if (Array.isArray(v)) return v.slice(0, 200).map(clip);
      if (typeof v === 'object' && v !== null)
        return Object.fromEntries(
          Object.entries(v)
            .slice(0, 200)
            .map(([k, x]) => [k.slice(0, 200), clip(x)]),
        );
      return v;
    };
    const out = clip(obj) as Record<string, unknown>;
    if (JSON.stringify(out).length <= MAX_INPUT_CHARS || limit <= 100) return JSON.stringify(out).length <= MAX_INPUT_CHARS ? out : { clipped: true };
    limit = Math.floor(limit / 2);
  }
}

/**
 * Connects the hook channel to the hub: each request becomes a `permission_request` event of its
 * session, each end a `permission_resolved` (once), and `answer_permission` commands become the
 * channel's answers. Returns the command handler.
 */
export class HookReporter {
  /** requestId → the answerId the channel answered with (a repeated command is the same answer). */
  private readonly answered = new Map<string, string>();
  private readonly reported = new Set<string>();

  constructor(private readonly o: HookReporterOptions) {
    o.channel.on((e) => {
      try {
        if (e.type === 'permission_request') this.request(e.record);
        else this.changed(e.record);
      } catch (err) {
        o.log('warn', 'agent.hook_report_failed', { requestId: e.record.requestId, err: (err as Error).message });
      }
    });
  }

  /** Reports the session's pending requests again (under its current generation); returns how many. */
  reannounce(sessionId: string): number {
    const open = this.o.channel.pending(sessionId);
    for (const r of open) this.request(r);
    if (open.length > 0) this.o.log('info', 'agent.permission_reannounced', { sessionId, requests: open.map((r) => r.requestId) });
    return open.length;
  }

  private request(r: PermissionRecord): void {
    const executor = r.executor;
    const toolName = (r.toolName ?? 'unknown').slice(0, 200);
    const input = boundToolInput(r.toolInput);
    const kind = r.kind === 'question' || requestKind(toolName) === 'question' ? 'question' : 'tool';
    this.o.emit({
      event: 'permission_request',
      sessionId: r.sessionId,
      generation: this.o.generationOf(r.sessionId) ?? undefined,
      payload: {
        requestId: r.requestId,
        executor,
        kind,
        toolName,
        toolInput: input,
        // Codex's `description` is the model's reason for asking (the channel keeps it); Claude's is the tool call's own label.
        ...(r.justification ? { justification: r.justification.slice(0, 4000) } : {}),
        // Offered only where core's rule names one (the buttons show that rule: `alwaysAllowOffer`).
        canAlwaysAllow: typeof alwaysAllowRule({ executor, kind, toolName: r.toolName, toolInput: r.toolInput }) === 'object',
        receivedAt: Date.parse(r.receivedAt),
        expiresAt: Date.parse(r.expiresAt),
      },
    });
  }

  private changed(r: PermissionRecord): void {
    if (r.state === 'pending' || r.state === 'delivered' || this.reported.has(r.requestId)) return;
    this.reported.add(r.requestId);
    const answerId = this.answered.get(r.requestId);
    const outcome = r.state === 'answered' ? 'answered' : r.state;
    if (outcome === 'answered' && !answerId) return;
    this.o.emit({
      event: 'permission_resolved',
      sessionId: r.sessionId,
      generation: this.o.generationOf(r.sessionId) ?? undefined,
      payload: {
        requestId: r.requestId,
        outcome,
        ...(outcome === 'answered' ? { answerId } : {}),
        at: Date.parse(r.endedAt ?? new Date().toISOString()),
        ...(r.evidence ? { evidence: { detail: r.evidence.slice(0, 500), ...(r.hookPid ? { hookPid: r.hookPid } : {}) } } : {}),
      },
    });
  }

  /** `answer_permission`: the first answer reaches the hook; the same answer again is `ok`; another is refused. */
  answer(p: AnswerPermissionPayload): CommandAnswer {
    const prior = this.answered.get(p.requestId);
    if (prior !== undefined) {
      return prior === p.answerId
        ? { ok: true, requestId: p.requestId, repeated: true }
        : { ok: false, code: 'failed', error: 'the request was already answered' };
    }
    if (p.decision === 'at_computer') {
      this.answered.set(p.requestId, p.answerId);
      const r = this.o.channel.release(p.requestId);
      if (r.ok) return { ok: true, requestId: p.requestId, released: true };
      this.answered.delete(p.requestId);
      return r.reason === 'unknown_request'
        ? { ok: false, code: 'not_found', error: 'no such permission request on this computer' }
        : { ok: false, code: 'failed', error: 'the request is no longer pending' };
    }
    const answer: PermissionAnswer =
      p.decision === 'deny'
        ? { behavior: 'deny', ...(p.message ? { message: p.message } : {}) }
        : { behavior: 'allow', ...(p.decision === 'always_allow' ? { alwaysAllow: true } : {}), ...(p.answers ? { answers: p.answers } : {}) };
    // Set before answering: the channel reports the change synchronously and the report needs it.
    this.answered.set(p.requestId, p.answerId);
    const r = this.o.channel.answer(p.requestId, answer);
    if (r.ok) return { ok: true, requestId: p.requestId };
    this.answered.delete(p.requestId);
    if (r.reason === 'unknown_request') return { ok: false, code: 'not_found', error: 'no such permission request on this computer' };
    // Still pending at the CLI: the front ends never offer such an answer (the hub checks it first).
    if (r.reason === 'unsupported') return { ok: false, code: 'invalid_payload', error: `the answer does not fit the request: ${r.detail}` };
    return { ok: false, code: 'failed', error: `the request is no longer pending (${r.record?.state ?? 'unknown'})` };
  }
}
