import { compactContext } from './compact-context.ts';
import type { AnswerDialogPayload } from '@bria/core/protocol';
import { answerDialog } from './answer-dialog.ts';
import { type AdoptParams, adoptInPlace } from './adopt-in-place.ts';
import type { SessionHost, SessionIdentity, Tmux } from '../executors/index.ts';
import { type AttachParams, attachSession } from './attach-session.ts';
import { bindSession } from './bind-session.ts';
import { closeSession } from './close-session.ts';
import { type DeliverParams, deliverMessage } from './deliver-message.ts';
import { interruptTurn } from './interrupt-turn.ts';
import { interruptedResult } from './interrupted-result.ts';
import type { SessionRegistry } from './registry.ts';
import { restoreSessions } from './restore-sessions.ts';
import { type ResumeParams, resumeSession } from './resume-session.ts';
import { type Result, type SessionControlOptions, SessionRuntime } from './session-runtime.ts';
import { type StartParams, startSession } from './start-session.ts';

export { processGone } from './cli-process.ts';
export type { Emit, Log, Result, SessionControlOptions } from './session-runtime.ts';

/**
 * Runs the hub's session commands against real CLIs and remembers, on disk, which process each Bria
 * session is. Commands of one session run one after another; an interrupt does not wait behind them.
 * Nothing here ever sends a key because the hub went away, the agent stopped or a read failed.
 * Each command lives in its own file over the shared `SessionRuntime`; this class is their one entry.
 */
export class SessionControl {
  readonly registry: SessionRegistry;
  private readonly rt: SessionRuntime;

  constructor(o: SessionControlOptions) {
    this.rt = new SessionRuntime(o);
    this.registry = this.rt.registry;
  }

  /** Runs `fn` after the session's earlier commands. */
  serial<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    return this.rt.serial(sessionId, fn);
  }

  /** Refuses a command issued under an older observer generation; adopts a newer one. */
  claim(sessionId: string, generation: number): string | null {
    return this.rt.claim(sessionId, generation);
  }

  host(sessionId: string): SessionHost | undefined {
    return this.rt.hosts.get(sessionId);
  }

  /** How many sessions have a CLI host in this agent now (their tmux server must exist). */
  get hostCount(): number {
    return this.rt.hosts.size;
  }

  start(sessionId: string, p: StartParams): Promise<Result> {
    return startSession(this.rt, sessionId, p);
  }

  resume(sessionId: string, p: ResumeParams): Promise<Result> {
    return resumeSession(this.rt, sessionId, p);
  }

  /** "Adopt in place": binds to the session's CLI in a tmux pane of the user's own (`adopt-in-place.ts`). */
  adopt(sessionId: string, p: AdoptParams): Promise<Result> {
    return adoptInPlace(this.rt, sessionId, p);
  }

  /** The pids of the CLIs adopted in place (Bria's own, though outside its tmux server). */
  adoptedPids(): number[] {
    return this.rt.adoptedPids();
  }

  /** The tmux server a session's pane lives on (Bria's, or the user's own when adopted). */
  tmuxFor(identity: SessionIdentity | null): Tmux {
    return this.rt.tmuxFor(identity);
  }

  deliver(sessionId: string, p: DeliverParams): Promise<Result> {
    return deliverMessage(this.rt, sessionId, p);
  }

  /** The CLI's own `/compact` while it is idle (`compact-context.ts`). */
  compact(sessionId: string): Promise<Result> {
    return compactContext(this.rt, sessionId);
  }

  /** The user's answer to a start's folder-trust dialog (`answer-dialog.ts`). */
  answerDialog(sessionId: string, p: AnswerDialogPayload): Promise<Result> {
    return answerDialog(this.rt, sessionId, p);
  }

  interrupt(sessionId: string): Promise<Result> {
    return interruptTurn(this.rt, sessionId);
  }

  close(sessionId: string): Promise<Result> {
    return closeSession(this.rt, sessionId);
  }

  attach(sessionId: string, p: AttachParams): Promise<Result> {
    return attachSession(this.rt, sessionId, p);
  }

  bind(sessionId: string, identity: SessionIdentity | null): Promise<Result> {
    return bindSession(this.rt, sessionId, identity);
  }

  interruptedResult(c: { command: string; sessionId?: string; messageId?: string; generation?: number }): Promise<Result> {
    return interruptedResult(this.rt, c);
  }

  /** After an agent restart: every session that was live is re-attached exactly (or reported gone). */
  restore(): Promise<void> {
    return restoreSessions(this.rt);
  }

  /** Observation ends; the CLIs keep running untouched in tmux. */
  detachAll(): void {
    for (const h of this.rt.hosts.values()) h.detach();
  }
}
