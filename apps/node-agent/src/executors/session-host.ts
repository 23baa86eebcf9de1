import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { JournalShrankError, JsonlTailer } from '../journal/jsonl-tailer.ts';
import type { Tmux } from '../tmux/tmux.ts';
import { HostEvents } from './host-events.ts';
import { type CloseEvidence, closeCli, type Mismatch, verifyIdentity } from './launch.ts';
import { type DeathReport, HealthMonitor } from './health.ts';
import { findReceipt } from './receipt.ts';
import { type CompactResult, compactCli } from './session-compact.ts';
import { type DeliveryGate, dialogNotice, typeMessage } from './session-delivery.ts';
import { interruptTurns, type InterruptResult } from './session-interrupt.ts';
import { launchCli } from './session-launch.ts';
import * as H from './session-host-types.ts';

export type { DeliverResult, SessionHostOptions } from './session-host-types.ts';
type DeliverResult = H.DeliverResult;
import type { HostTurn as Turn } from './session-turns.ts';
import { turnOutcomeEvents } from './turn-outcome-events.ts';
import { nativeIdRefusal } from './native-id.ts';
import {
  type DriverContext,
  type ExecutorDriver,
  ExecutorError,
  type JournalReader,
  type HookLaunch,
  type PermissionMode,
  type SessionIdentity,
} from './types.ts';

/** One native CLI session in one tmux pane: start/resume/attach, deliver, interrupt, close. */
export class SessionHost extends HostEvents {
  private readonly driver: ExecutorDriver;
  private readonly tmux: Tmux;
  private readonly opts: H.SessionHostOptions;
  private readonly t: H.Timeouts;
  private state: H.State = 'new';
  private ident: SessionIdentity | null = null;
  private journal: JournalReader;
  private tailer: JsonlTailer | null = null;
  private readonly turns: Turn[] = [];
  private receipt: H.Receipt | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  /** The dialog text the last refused delivery was told of (so a dialog is told once). */
  private refusedOn: string | null = null;
  private monitor: HealthMonitor | null = null;
  private startedAt = 0;

  constructor(opts: H.SessionHostOptions) {
    super();
    this.opts = opts;
    this.driver = opts.driver;
    this.tmux = opts.tmux;
    this.t = { ...H.DEFAULTS, ...opts.timeouts };
    this.journal = opts.driver.createJournal();
  }

  identity(): SessionIdentity {
    if (!this.ident) throw new ExecutorError('not_ready', 'no session yet');
    return { ...this.ident };
  }

  /** The running CLI's identity, or null before it has one. */
  identityOrNull(): SessionIdentity | null {
    return this.ident ? { ...this.ident } : null;
  }

  /** Bytes of the journal already read; an agent stores it to re-attach later. */
  get journalOffset(): number {
    return this.tailer?.offset ?? 0;
  }

  /**
   * Hooks (`HookLaunch`): Claude `settingsPath` from `HookChannel.settingsFor`, Codex `codexHooks`
   * from `HookChannel.codexConfigArgs`; the other executor's form is refused, never ignored.
   */
  start(o: { cwd: string; permissionMode?: PermissionMode; model?: string; sessionName: string } & HookLaunch): Promise<SessionIdentity> {
    const refusal = H.hookRefusal(this.driver, o);
    if (refusal) return Promise.reject(new ExecutorError('start_failed', refusal));
    const nativeId = this.driver.chooseNativeId();
    const args = H.launchArgs(this.driver, 'start', { ...o, nativeId });
    return this.launch({ ...o, args, expectedId: nativeId, resumed: false });
  }

  /** Reopens exactly `nativeId` from its folder; never falls back to a new session. */
  resume(o: { nativeId: string; cwd: string; permissionMode?: PermissionMode; model?: string; sessionName: string } & HookLaunch): Promise<SessionIdentity> {
    const refusal = nativeIdRefusal(this.driver.executor, o.nativeId) ?? H.hookRefusal(this.driver, o);
    if (refusal) return Promise.reject(new ExecutorError('resume_failed', refusal));
    const args = H.launchArgs(this.driver, 'resume', o);
    return this.launch({ ...o, args, expectedId: o.nativeId, resumed: true });
  }

  private ctx(): DriverContext {
    const id = this.identity();
    return { tmux: this.tmux, paneId: id.paneId, cwd: id.cwd, env: this.opts.env, cliPid: id.cliPid, startedAt: this.startedAt };
  }

  private async launch(o: { cwd: string; sessionName: string; args: string[]; expectedId: string | null; resumed: boolean }): Promise<SessionIdentity> {
    if (this.state !== 'new') throw new ExecutorError('start_failed', `host already used (${this.state})`);
    this.state = 'starting';
    this.startedAt = Date.now();
    const r = await launchCli({
      ...o,
      driver: this.driver,
      tmux: this.tmux,
      bin: this.opts.bin,
      env: this.opts.env,
      readyMs: this.t.readyMs,
      startedAt: this.startedAt,
      onIdentity: (identity) => {
        this.ident = identity;
      },
      emit: (e) => this.emit(e),
    });
    if (r.kind === 'failed') {
      this.state = r.leave;
      throw r.error;
    }
    // A resumed journal holds the earlier runs' history, which the hub already has: activity is
    // sent from where this run starts (turn outcomes likewise concern only this run's deliveries).
    if (r.journalPath && o.resumed) this.journal.activity.floor = (await stat(r.journalPath).catch(() => null))?.size ?? 0;
    if (r.journalPath) this.follow(r.journalPath, 0);
    this.state = 'ready';
    this.startMonitor();
    this.emit({ type: 'ready', nativeId: r.nativeId, resumed: o.resumed, evidence: r.evidence });
    return this.identity();
  }

  private follow(path: string, offset: number): void {
    this.tailer?.stop();
    this.tailer = new JsonlTailer({
      // fs.watch (inotify on the folder) wakes the tailer; its poll is only a safety net for a missed
      // event, so it runs every 10 s instead of every second (20 idle sessions: 2 stats a second).
      path,
      offset,
      pollMs: H.JOURNAL_SAFETY_POLL_MS,
      onLines: (lines) => {
        this.journal.ingest(lines);
        this.evaluate();
      },
      // A failed read only pauses observation; the CLI is never touched because of it. A shrunken
      // journal contradicts everything read so far, so it is reported.
      onError: (err) => {
        if (err instanceof JournalShrankError)
          this.emit({ type: 'unknown', messageId: null, reason: err.message, evidence: { journalPath: path, offset: err.offset, size: err.size } });
      },
    });
    this.tailer.start();
  }

  private evaluate(): void {
    const r = this.receipt;
    const hit =
      r &&
      findReceipt({
        prompts: this.journal.promptsFrom(r.baseline),
        baseline: r.baseline,
        bound: new Set(this.turns.map((t) => t.promptOffset).filter((x) => x !== null)),
        sent: r.sent,
        matches: (stored, sent) => {
          // A prompt that carried images holds their placeholders before the text (image-paste.ts).
          const text = r.images > 0 ? (this.driver.images?.textAfter(stored, r.images) ?? null) : stored;
          return text !== null && this.driver.promptMatches(text, sent);
        },
      });
    if (r && hit) {
      this.receipt = null;
      this.turns.push({ messageId: r.messageId, nativeRef: hit.nativeRef, promptOffset: hit.offset, done: false });
      this.monitor?.poke();
      this.emit({
        type: 'accepted',
        messageId: r.messageId,
        nativeRef: hit.nativeRef,
        evidence: { offset: hit.offset, end: hit.end, journalPath: this.ident?.journalPath },
      });
      r.resolve(hit.nativeRef);
    }
    // After the receipt (the hub learns the turn first) and before the outcomes, so a batch's calls
    // reach the hub before that turn's final. It costs the final at most one event write per batch
    // (as `usage` does), and a failure here never keeps the outcomes from being sent.
    try {
      for (const activity of this.journal.activity.drain()) this.emit({ type: 'activity', activity });
    } catch {
      // display only
    }
    for (const limit of this.journal.limits.drain()) this.emit({ type: 'limit', limit });
    for (const turn of this.turns) if (!turn.done) this.settleTurn(turn);
  }

  private settleTurn(turn: Turn): void {
    const main = this.turns.find((t) => t.nativeRef === turn.nativeRef)!;
    const events = turnOutcomeEvents(this.journal.outcome(turn.nativeRef), turn.messageId, main === turn ? null : main.messageId);
    if (!events) return;
    for (const e of events) this.emit(e);
    turn.done = true;
  }

  /** The CLI's own `/compact` (`compactCli`), typed while the CLI is idle, after the deliveries before it. */
  compact(ms = 120_000): Promise<CompactResult> {
    const run = this.chain.then(() => this.compactNow(ms));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async compactNow(ms: number): Promise<CompactResult> {
    if (this.state !== 'ready' || this.receipt || this.running().length > 0) return { ok: false, reason: 'the CLI is busy with a turn', typed: false };
    const id = this.identity();
    const journal = this.ident?.journalPath ?? (await this.driver.findJournal(this.ctx(), id.nativeId, { resumed: false }));
    if (!journal) return { ok: false, reason: 'nothing to compact yet: the conversation has no message', typed: false };
    const baseline = (await stat(journal).catch(() => null))?.size ?? 0;
    return compactCli({ tmux: this.tmux, paneId: id.paneId, executor: this.driver.executor, journal, baseline, ms });
  }

  /** Pastes the exact text (after the image files, if any) once and resolves when the journal shows the CLI took it in. */
  deliver(m: { messageId: string; text: string; images?: readonly string[] }, gate?: DeliveryGate): Promise<DeliverResult> {
    const run = this.chain.then(() => this.deliverNow(m, gate));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async deliverNow(m: { messageId: string; text: string; images?: readonly string[] }, gate?: DeliveryGate): Promise<DeliverResult> {
    if (this.state !== 'ready') throw new ExecutorError('not_ready', `cannot deliver while ${this.state}`);
    const images = m.images ?? [];
    if (images.length > 0 && !this.driver.images) throw new ExecutorError('not_ready', `${this.driver.executor} takes no pasted images`);
    const id = this.identity();
    const sent = m.text;
    await this.tailer?.readNow();
    const baseline = this.tailer?.offset ?? 0;
    let resolve!: (ref: string) => void;
    const got = new Promise<string>((r) => (resolve = r));
    // The CLI dying ends the wait at once (after its journal's last lines were read): no receipt can
    // come any more, and the session's next command (the resume) must not wait out the timeout.
    let died!: () => void;
    const death = new Promise<'died'>((r) => (died = () => r('died')));
    let dead = false;
    void death.then(() => (dead = true));
    await typeMessage({
      tmux: this.tmux,
      driver: this.driver,
      paneId: id.paneId,
      messageId: m.messageId,
      text: sent,
      images,
      followUp: this.running().length > 0,
      gate,
      refused: (text) => {
        const notice = dialogNotice({ text, toldOf: this.refusedOn, paneId: id.paneId, messageId: m.messageId });
        if (notice) this.emit(notice);
        this.refusedOn = text;
      },
      arm: () => {
        this.refusedOn = null;
        this.receipt = { messageId: m.messageId, sent, images: images.length, baseline, resolve, died };
      },
      disarm: () => {
        this.receipt = null;
      },
    });
    const deadline = Date.now() + this.t.receiptMs;
    // Codex creates its rollout file with the first message; find it (by its own id) now.
    while (!this.tailer && !dead && Date.now() < deadline) {
      const path = await this.driver.findJournal(this.ctx(), id.nativeId, { resumed: false });
      if (path) {
        this.ident!.journalPath = path;
        this.follow(path, 0);
      } else await sleep(100);
    }
    const timeout = sleep(Math.max(0, deadline - Date.now())).then(() => null);
    const ref = await Promise.race([got, timeout, death]);
    if (ref && ref !== 'died') return { accepted: true, nativeRef: ref };
    this.receipt = null;
    const reason = ref === 'died' ? 'the CLI exited before its journal showed the message' : 'no journal receipt in time';
    this.emit({ type: 'unknown', messageId: m.messageId, reason, evidence: { baseline, journalPath: this.ident?.journalPath } });
    return { accepted: false, reason };
  }

  private running(): Turn[] {
    return this.turns.filter((t) => !t.done);
  }

  /** One Esc. Resolves with what the CLI confirmed; never a second Esc on an empty Claude prompt. */
  async interrupt(): Promise<InterruptResult> {
    if (this.state !== 'ready') return { sent: false, confirmed: false, reason: `session is ${this.state}` };
    const turns = this.running();
    if (turns.length === 0) return { sent: false, confirmed: false, reason: 'no current work' };
    const id = this.identity();
    return interruptTurns({
      tmux: this.tmux,
      paneId: id.paneId,
      turns,
      timeoutMs: this.t.interruptMs,
      readNow: async () => {
        await this.tailer?.readNow();
      },
      idleStatus: () => this.driver.idleStatus(this.ctx()),
      emit: (e) => this.emit(e),
      onPaneDirty: () => {
        this.state = 'unconfirmed';
      },
    });
  }

  /** `/exit` and verified termination of the whole process tree; escalates if it does not end. */
  async close(): Promise<CloseEvidence> {
    const id = this.identity();
    if (!['ready', 'unconfirmed', 'exited'].includes(this.state)) throw new ExecutorError('closed', `session is ${this.state}`);
    const graceful = this.state === 'ready';
    this.state = 'closing';
    await this.chain;
    this.stopMonitor();
    const ev = await closeCli({ tmux: this.tmux, identity: id, exitMs: this.t.exitMs, graceful });
    await this.tailer?.readNow().catch(() => undefined);
    this.evaluate();
    this.tailer?.stop();
    this.state = 'closed';
    this.emit({ type: 'exited', expected: true, pids: ev.pids, exitStatus: ev.exitStatus, paneDead: ev.paneDead, evidence: { ...ev } });
    return ev;
  }

  /** After an agent restart: bind to a running pane only if every identity field still holds. */
  async attach(
    identity: SessionIdentity,
    o: { journalOffset?: number; watch?: { messageId: string; nativeRef: string }[] } = {},
  ): Promise<{ ok: true } | { ok: false; mismatches: Mismatch[] }> {
    if (this.state !== 'new') throw new ExecutorError('start_failed', `host already used (${this.state})`);
    const mismatches = await verifyIdentity(this.tmux, this.driver, identity);
    this.ident = { ...identity };
    if (mismatches.length === 0) {
      const stated = await this.driver.readNativeIdPassive?.(this.ctx());
      if (stated !== undefined && stated !== identity.nativeId) mismatches.push({ field: 'nativeId', expected: identity.nativeId, actual: stated });
    }
    if (mismatches.length > 0) {
      this.ident = null;
      return { ok: false, mismatches };
    }
    for (const w of o.watch ?? []) this.turns.push({ ...w, promptOffset: null, done: false });
    if (identity.journalPath) {
      // Claude's turns are a graph that may point anywhere back, so it is always read whole; a Codex
      // rollout is read per turn and can continue from the stored offset.
      const from = this.driver.executor === 'codex' ? (o.journalOffset ?? 0) : 0;
      // What was read before the stored offset was reported by the earlier observer: only changes
      // after it are sent again (a call begun before it and ended after it is).
      this.journal.activity.floor = o.journalOffset ?? 0;
      this.follow(identity.journalPath, from);
      await this.tailer?.readNow();
      const ids = this.journal.statedIds();
      if (ids.some((x) => x !== identity.nativeId)) {
        this.tailer?.stop();
        this.tailer = null;
        this.ident = null;
        return { ok: false, mismatches: [{ field: 'journalSessionId', expected: identity.nativeId, actual: ids }] };
      }
    }
    this.state = 'ready';
    this.startMonitor();
    this.emit({
      type: 'ready',
      nativeId: identity.nativeId,
      resumed: false,
      evidence: { attached: true, cliPid: identity.cliPid, journalOffset: this.journalOffset },
    });
    return { ok: true };
  }

  /** Stops observing. The CLI keeps running untouched (an observer leaving is not a reason to stop it). */
  detach(): void {
    this.stopMonitor();
    this.tailer?.stop();
    if (this.state === 'ready') this.state = 'detached';
  }

  private startMonitor(): void {
    this.monitor = new HealthMonitor({
      tmux: this.tmux,
      identity: this.identity(),
      intervalMs: this.t.monitorMs,
      workRunning: () => this.running().length > 0,
      onBlocked: (promptText) => this.emit({ type: 'blocked_on_prompt', promptText, evidence: { paneId: this.ident?.paneId } }),
      onDeath: (r) => void this.onDeath(r),
    });
    this.monitor.start();
  }

  private stopMonitor(): void {
    this.monitor?.stop();
    this.monitor = null;
  }

  private async onDeath(r: DeathReport): Promise<void> {
    if (this.state !== 'ready') return;
    this.state = 'exited';
    this.monitor = null;
    await this.tailer?.readNow().catch(() => undefined);
    this.evaluate();
    this.tailer?.stop();
    this.receipt?.died();
    const { pids, exitStatus, paneDead, stillAlive, health } = r;
    this.emit({ type: 'exited', expected: false, pids, exitStatus, paneDead, evidence: { ...health, stillAlive } });
  }
}
