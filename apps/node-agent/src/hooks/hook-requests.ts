import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { answerRefusal, cleanAnswer, type PermissionAnswer, permissionHookOutput } from './hook-answers.ts';
import { type AgentToHookFrame, hookLine, type PermissionRequestFrame } from './hook-wire.ts';
import { newRecord, type PermissionRecord, type RequestEvent, type RequestLog } from './request-log.ts';

export type AnswerResult =
  | { ok: true; record: PermissionRecord }
  | { ok: false; reason: 'unknown_request' | 'not_pending'; record?: PermissionRecord }
  /** The answer does not fit the request (always-allow for Codex or a question, answers for a tool…). */
  | { ok: false; reason: 'unsupported'; detail: string; record: PermissionRecord };

/**
 * The open requests' live side: which hook connection waits for which request, their bounds, and
 * the requests an earlier agent left open until their hooks reconnect. The states are the
 * `RequestLog`'s (moves by its table); this class decides which move a socket or timer means.
 */
export class HookRequests {
  /** Requests loaded pending (or answered, not delivered) after a restart, until their hook reconnects. */
  private readonly detached = new Set<string>();
  private readonly sockets = new Map<string, Socket>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  closing = false;

  constructor(
    private readonly log: RequestLog,
    private readonly o: { boundMs: number; reattachMs: number },
  ) {}

  /** After `log.load()`: closes what cannot come back, waits `reattachMs` for hooks that can. */
  restore(): void {
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
          const why = r.state === 'answered' ? ' (the answer did not reach it)' : '';
          this.move(r, 'lose', `the agent restarted and the hook did not reconnect within ${this.o.reattachMs} ms${why}`);
        }, this.o.reattachMs),
      );
    }
  }

  close(): void {
    this.closing = true;
    this.detached.clear();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const s of this.sockets.values()) s.destroy();
  }

  /** A verified `permission_request`: a new request (durable before anyone sees it), or a hook back after a restart. */
  received(socket: Socket, msg: PermissionRequestFrame): string | null {
    const { sessionId, hookKey } = msg;
    const known = hookKey ? this.log.all().find((x) => x.hookKey === hookKey && x.sessionId === sessionId) : undefined;
    if (known) return this.reattach(socket, known);
    const r = newRecord(msg, { requestId: randomUUID(), now: Date.now(), boundMs: this.o.boundMs });
    this.log.add(r);
    this.sockets.set(r.requestId, socket);
    this.armBound(r, socket, this.o.boundMs);
    this.log.announce(r);
    return r.requestId;
  }

  delivered(requestId: string): void {
    const r = this.log.record(requestId);
    if (r) this.move(r, 'ack', `hook pid ${String(r.hookPid)} acknowledged the answer`);
  }

  /** The connection of `requestId` closed: a request still pending ended at its bound or without its hook. */
  closed(requestId: string, socket: Socket): void {
    if (this.closing || this.sockets.get(requestId) !== socket) return;
    this.sockets.delete(requestId);
    const r = this.log.record(requestId);
    if (r?.state !== 'pending') return;
    if (Date.now() >= Date.parse(r.expiresAt) - 1000) this.move(r, 'expire', 'the hook gave up at its bound; the question waits at the computer');
    else
      this.move(r, 'hook_gone', 'the hook connection closed before an answer (the CLI ended or killed the hook, or the question was answered at the computer)');
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

  /** The user answers at the computer: the hook ends without an answer (Codex then shows its dialog). */
  release(requestId: string): AnswerResult {
    const r = this.log.record(requestId);
    if (!r) return { ok: false, reason: 'unknown_request' };
    if (r.state !== 'pending') return { ok: false, reason: 'not_pending', record: { ...r } };
    this.detached.delete(requestId);
    this.move(r, 'expire', 'released by the user: the question waits at the computer');
    this.endHook(requestId, { type: 'end', requestId, state: 'released' });
    return { ok: true, record: { ...r } };
  }

  /** The dialog left the screen while the hook waits: answered at the computer (`HookChannel.settleAtComputer`). */
  settleAtComputer(requestId: string, evidence: string): boolean {
    const r = this.log.record(requestId);
    if (r?.state !== 'pending') return false;
    this.detached.delete(requestId);
    this.move(r, 'hook_gone', evidence);
    this.endHook(requestId, { type: 'end', requestId, state: 'hook_gone' });
    return true;
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
        this.move(r, 'expire', `no answer within ${this.o.boundMs} ms; the question waits at the computer`);
        socket.end();
      }, ms),
    );
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
