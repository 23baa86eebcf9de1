import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_PERMISSION_MODE } from '@bria/core/protocol';
import { JournalShrankError, JsonlTailer } from '../journal/jsonl-tailer.ts';
import type { Tmux } from '../tmux/tmux.ts';
import { HostEvents } from './host-events.ts';
import { type CloseEvidence, closeCli, lastWords, type Mismatch, verifyIdentity, waitForCliPid, waitForPrompt } from './launch.ts';
import { type DeathReport, HealthMonitor } from './health.ts';
import { procStat } from './process-table.ts';
import { findReceipt } from './receipt.ts';
import { awaitInterruptEvidence } from './interrupt-evidence.ts';
import { clearRefilledPrompt } from './prompt-box.ts';
import { claudePromptBox, detectBlockingPrompt } from './screen.ts';
import { turnOutcomeEvents } from './turn-outcome-events.ts';
import { nativeIdRefusal } from './native-id.ts';
import {
  type DriverContext, type Env, type ExecutorDriver, ExecutorError, type JournalReader,
  type HookLaunch, type PermissionMode, type SessionIdentity,
} from './types.ts';

export interface SessionHostOptions {
  driver: ExecutorDriver;
  tmux: Tmux;
  /** Path of the CLI binary; resolving it is the caller's job. */
  bin: string;
  /** The CLI's complete environment (HOME, CODEX_HOME, CLAUDE_CONFIG_DIR, proxies, base URLs…). */
  env: Env;
  timeouts?: Partial<Timeouts>;
}

interface Timeouts { readyMs: number; receiptMs: number; interruptMs: number; exitMs: number; monitorMs: number }
const JOURNAL_SAFETY_POLL_MS = 10_000;
/** How long a follow-up's typing gate waits for Claude to take the Enter (its box empty again). */
const ENTER_TAKEN_MS = 2_000;

/**
 * Held while a follow-up is typed into a running turn (the agent's hook channel): `begin` says why
 * typing may not begin now (null = it began); `end` lets the tool calls that waited go on.
 */
export interface TypingGate {
  begin(): string | null;
  end(): void;
}
const DEFAULTS: Timeouts = { readyMs: 30_000, receiptMs: 30_000, interruptMs: 8_000, exitMs: 8_000, monitorMs: 1_000 };

/**
 * One delivered message bound to its native turn. Codex steers a message typed during a running turn
 * into that same turn (same turn id): such follow-ups share the main request's outcome.
 */
interface Turn { messageId: string; nativeRef: string; promptOffset: number | null; done: boolean }
interface Receipt { messageId: string; sent: string; baseline: number; resolve: (ref: string) => void; died: () => void }
// 'unconfirmed': a CLI runs in the pane but was never proven ready (dialog, wrong id): close() may
// kill it, but no key is sent to it, since a key could answer a question on the user's behalf.
type State = 'new' | 'starting' | 'ready' | 'unconfirmed' | 'closing' | 'closed' | 'exited' | 'detached';

export type DeliverResult = { accepted: true; nativeRef: string } | { accepted: false; reason: string };

/** One native CLI session in one tmux pane: start/resume/attach, deliver, interrupt, close. */
export class SessionHost extends HostEvents {
  private readonly driver: ExecutorDriver;
  private readonly tmux: Tmux;
  private readonly opts: SessionHostOptions;
  private readonly t: Timeouts;
  private state: State = 'new';
  private ident: SessionIdentity | null = null;
  private journal: JournalReader;
  private tailer: JsonlTailer | null = null;
  private readonly turns: Turn[] = [];
  private receipt: Receipt | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  /** The dialog text the last refused delivery was told of (so a dialog is told once). */
  private refusedOn: string | null = null;
  private monitor: HealthMonitor | null = null;
  private startedAt = 0;

  constructor(opts: SessionHostOptions) {
    super();
    this.opts = opts;
    this.driver = opts.driver;
    this.tmux = opts.tmux;
    this.t = { ...DEFAULTS, ...opts.timeouts };
    this.journal = opts.driver.createJournal();
  }

  identity(): SessionIdentity {
    if (!this.ident) throw new ExecutorError('not_ready', 'no session yet');
    return { ...this.ident };
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
    const refusal = this.hookRefusal(o);
    if (refusal) return Promise.reject(new ExecutorError('start_failed', refusal));
    const nativeId = this.driver.chooseNativeId();
    const args = this.driver.startArgs({ nativeId, cwd: o.cwd, permissionMode: o.permissionMode ?? DEFAULT_PERMISSION_MODE[this.driver.executor], model: o.model, settingsPath: o.settingsPath, codexHooks: o.codexHooks });
    return this.launch({ ...o, args, expectedId: nativeId, resumed: false });
  }

  /** Reopens exactly `nativeId` from its folder; never falls back to a new session. */
  resume(o: { nativeId: string; cwd: string; permissionMode?: PermissionMode; model?: string; sessionName: string } & HookLaunch): Promise<SessionIdentity> {
    const refusal = nativeIdRefusal(this.driver.executor, o.nativeId) ?? this.hookRefusal(o);
    if (refusal) return Promise.reject(new ExecutorError('resume_failed', refusal));
    const args = this.driver.resumeArgs({ nativeId: o.nativeId, cwd: o.cwd, permissionMode: o.permissionMode ?? DEFAULT_PERMISSION_MODE[this.driver.executor], model: o.model, settingsPath: o.settingsPath, codexHooks: o.codexHooks });
    return this.launch({ ...o, args, expectedId: o.nativeId, resumed: true });
  }

  private hookRefusal(o: HookLaunch): string | null {
    if (o.settingsPath && !this.driver.hookSettings) return `${this.driver.executor}: takes no Claude hook settings file`;
    if (o.codexHooks?.length && !this.driver.codexHooks) return `${this.driver.executor}: takes no Codex hook overrides`;
    return null;
  }

  private ctx(): DriverContext {
    const id = this.identity();
    return { tmux: this.tmux, paneId: id.paneId, cwd: id.cwd, env: this.opts.env, cliPid: id.cliPid, startedAt: this.startedAt };
  }

  private async launch(o: { cwd: string; sessionName: string; args: string[]; expectedId: string | null; resumed: boolean }): Promise<SessionIdentity> {
    if (this.state !== 'new') throw new ExecutorError('start_failed', `host already used (${this.state})`);
    const code = o.resumed ? 'resume_failed' : 'start_failed';
    this.state = 'starting';
    this.startedAt = Date.now();
    const pane = await this.tmux
      .newSession({ name: o.sessionName, cwd: o.cwd, command: [this.opts.bin, ...o.args], env: this.opts.env })
      .catch((err: unknown) => {
        this.state = 'closed';
        throw new ExecutorError(code, `could not create the tmux session: ${(err as Error).message}`);
      });
    const fail = async (reason: string, details: Record<string, unknown>): Promise<never> => {
      // A dead pane has nothing left to protect; a live one stays for the caller to close or inspect.
      const info = await this.tmux.paneInfo(pane.paneId);
      if (info?.dead) await this.tmux.killSession(o.sessionName).catch(() => undefined);
      this.state = 'closed';
      throw new ExecutorError(code, reason, details);
    };
    const cliPid = await waitForCliPid(this.tmux, pane.paneId, pane.panePid, 5000);
    // The wrapper shell has read the script by now (its child runs) or is gone: the script, which
    // holds the CLI's environment, is no longer needed.
    await this.tmux.removeScript(pane.scriptPath).catch(() => undefined);
    if (cliPid === null) {
      const screen = await this.tmux.capture(pane.paneId).catch(() => '');
      return fail('CLI did not start', { cliSaid: lastWords(screen), exitStatus: await this.tmux.readExitStatus(pane.exitFile, 2_000) });
    }
    const st = await procStat(cliPid);
    this.ident = {
      executor: this.driver.executor, tmuxSocket: this.tmux.socketName, tmuxSession: o.sessionName,
      paneId: pane.paneId, panePid: pane.panePid, cliPid, cliStartTime: st?.startTime ?? '',
      cwd: o.cwd, nativeId: o.expectedId ?? '', journalPath: null, exitFile: pane.exitFile,
    };
    const ready = async () => waitForPrompt({
      tmux: this.tmux, paneId: pane.paneId, cliPid, exitFile: pane.exitFile, ms: this.t.readyMs,
      onBlocked: (promptText) => this.emit({ type: 'blocked_on_prompt', promptText, evidence: { paneId: pane.paneId, cliPid } }),
    });
    let wait = await ready();
    const settle = o.resumed ? this.driver.settleMs.resume : this.driver.settleMs.start;
    if (wait.state === 'ready' && settle > 0) {
      await sleep(settle);
      wait = await ready();
    }
    if (wait.state === 'dead') return fail('CLI exited before its prompt', { cliSaid: lastWords(wait.screen), exitStatus: wait.exitStatus });
    if (wait.state === 'timeout') {
      this.state = 'unconfirmed';
      throw new ExecutorError(wait.blockedOn ? 'blocked_on_prompt' : 'not_ready', 'CLI did not reach its prompt', { promptText: wait.blockedOn, identity: this.ident });
    }
    const stated = await this.driver.readNativeId(this.ctx());
    if (!stated.nativeId || (o.expectedId && stated.nativeId !== o.expectedId)) {
      this.state = 'unconfirmed';
      throw new ExecutorError(code, 'CLI does not confirm the session id', { expected: o.expectedId, stated: stated.nativeId, identity: this.ident });
    }
    this.ident.nativeId = stated.nativeId;
    const journalPath = await this.driver.findJournal(this.ctx(), stated.nativeId, { resumed: o.resumed });
    if (o.resumed && !journalPath) {
      this.state = 'unconfirmed';
      throw new ExecutorError(code, 'resumed session has no journal of its own', { identity: this.ident });
    }
    this.ident.journalPath = journalPath;
    // A resumed journal holds the earlier runs' history, which the hub already has: activity is
    // sent from where this run starts (turn outcomes likewise concern only this run's deliveries).
    if (journalPath && o.resumed) this.journal.activity.floor = (await stat(journalPath).catch(() => null))?.size ?? 0;
    if (journalPath) this.follow(journalPath, 0);
    this.state = 'ready';
    this.startMonitor();
    this.emit({ type: 'ready', nativeId: stated.nativeId, resumed: o.resumed, evidence: { cliPid, panePid: pane.panePid, idSource: stated.evidence, screen: 'prompt' } });
    return this.identity();
  }

  private follow(path: string, offset: number): void {
    this.tailer?.stop();
    this.tailer = new JsonlTailer({
      // fs.watch (inotify on the folder) wakes the tailer; its poll is only a safety net for a missed
      // event, so it runs every 10 s instead of every second (20 idle sessions: 2 stats a second).
      path, offset, pollMs: JOURNAL_SAFETY_POLL_MS,
      onLines: (lines) => {
        this.journal.ingest(lines);
        this.evaluate();
      },
      // A failed read only pauses observation; the CLI is never touched because of it. A shrunken
      // journal contradicts everything read so far, so it is reported.
      onError: (err) => {
        if (err instanceof JournalShrankError) this.emit({ type: 'unknown', messageId: null, reason: err.message, evidence: { journalPath: path, offset: err.offset, size: err.size } });
      },
    });
    this.tailer.start();
  }

  private evaluate(): void {
    const r = this.receipt;
    const hit = r && findReceipt({
      prompts: this.journal.promptsFrom(r.baseline), baseline: r.baseline,
      bound: new Set(this.turns.map((t) => t.promptOffset).filter((x) => x !== null)),
      sent: r.sent, matches: this.driver.promptMatches,
    });
    if (r && hit) {
      this.receipt = null;
      this.turns.push({ messageId: r.messageId, nativeRef: hit.nativeRef, promptOffset: hit.offset, done: false });
      this.monitor?.poke();
      this.emit({ type: 'accepted', messageId: r.messageId, nativeRef: hit.nativeRef, evidence: { offset: hit.offset, end: hit.end, journalPath: this.ident?.journalPath } });
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
    for (const turn of this.turns) if (!turn.done) this.settleTurn(turn);
  }

  private settleTurn(turn: Turn): void {
    const main = this.turns.find((t) => t.nativeRef === turn.nativeRef)!;
    const events = turnOutcomeEvents(this.journal.outcome(turn.nativeRef), turn.messageId, main === turn ? null : main.messageId);
    if (!events) return;
    for (const e of events) this.emit(e);
    turn.done = true;
  }

  /** Pastes the exact text once and resolves when the journal shows the CLI took it in. */
  /**
   * The CLI's own `/compact`, typed as the command (keys, not a paste: a pasted `/` is text) while
   * the CLI is idle, after the deliveries before it. Resolved by what the journal records: Claude
   * a `<command-name>/compact</command-name>` user record and its `<local-command-stdout>` line (its
   * own words, e.g. "Compacted" or why not); Codex an `item_completed` ContextCompaction (both seen
   * with the pinned CLIs). Nothing in the journal within `ms`: not confirmed, never typed again.
   */
  compact(ms = 120_000): Promise<{ ok: true; detail: string } | { ok: false; reason: string; typed: boolean }> {
    const run = this.chain.then(() => this.compactNow(ms));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async compactNow(ms: number): Promise<{ ok: true; detail: string } | { ok: false; reason: string; typed: boolean }> {
    if (this.state !== 'ready' || this.receipt || this.running().length > 0) return { ok: false, reason: 'the CLI is busy with a turn', typed: false };
    const id = this.identity();
    const journal = this.ident?.journalPath ?? (await this.driver.findJournal(this.ctx(), id.nativeId, { resumed: false }));
    if (!journal) return { ok: false, reason: 'nothing to compact yet: the conversation has no message', typed: false };
    const baseline = (await stat(journal).catch(() => null))?.size ?? 0;
    await this.tmux.sendKeys(id.paneId, ['-l', '/compact']);
    // Enter only once the input line holds exactly the command (a popup listing it is not enough:
    // Enter there would pick whatever the popup highlights), and not right after the keys: Codex
    // turns an Enter that follows input too closely into a newline.
    let typed = false;
    for (let i = 0; i < 60 && !typed; i++) {
      typed = compactTyped(this.driver.executor, await this.tmux.capture(id.paneId));
      if (!typed) await sleep(50);
    }
    if (!typed) {
      await this.tmux.sendKeys(id.paneId, ['C-u']);
      return { ok: false, reason: 'the CLI did not show /compact in its input; cleared, nothing run', typed: false };
    }
    await sleep(150);
    await this.tmux.sendKeys(id.paneId, ['Enter']);
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const added = await readFrom(journal, baseline);
      const found = compactEvidence(this.driver.executor, added);
      // The CLI ran the command: "Compacted…", or its own reason not to ("Not enough messages to compact").
      if (found !== null) return /^compacted/i.test(found) ? { ok: true, detail: found } : { ok: false, reason: found, typed: false };
      await sleep(250);
    }
    return { ok: false, reason: 'the CLI did not record a compaction in time', typed: true };
  }

  deliver(m: { messageId: string; text: string }, gate?: TypingGate): Promise<DeliverResult> {
    const run = this.chain.then(() => this.deliverNow(m, gate));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async deliverNow(m: { messageId: string; text: string }, gate?: TypingGate): Promise<DeliverResult> {
    if (this.state !== 'ready') throw new ExecutorError('not_ready', `cannot deliver while ${this.state}`);
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
    // A permission dialog on screen takes a paste + Enter as its highlighted "Yes" and loses the text
    // (hooks.md §3). Bria's hook reports it, but the dialog is drawn before the hook's request can
    // reach the agent: the screen is checked right before every paste, and nothing is typed then. Not
    // only for follow-ups: a host attached after an agent restart does not know that a turn runs, and
    // Claude draws its own dialog when its hook cannot reach an agent (chaos seed 150011: a main
    // message pasted into that dialog ran a `Write` nobody allowed).
    // The screen check alone leaves a window (a dialog drawn between the check and the Enter): for a
    // follow-up the typing gate also holds every tool call of the session until the CLI took the
    // Enter, and refuses to begin while a tool call is open (hook-channel.ts `beginTyping`).
    const followUp = this.running().length > 0;
    const held = followUp && gate ? gate.begin() : null;
    if (held !== null) throw new ExecutorError('not_ready', held);
    const guarded = followUp && gate !== undefined;
    try {
      const screen = await this.tmux.capture(id.paneId).catch(() => '');
      if (permissionDialogOnScreen(screen)) {
        // Said once per dialog: the chat learns what the session waits for at the computer (the
        // health monitor looks for dialogs only while it knows a turn runs, which a host attached
        // after an agent restart may not).
        const text = detectBlockingPrompt(screen);
        if (text && text !== this.refusedOn) this.emit({ type: 'blocked_on_prompt', promptText: text, evidence: { paneId: id.paneId, refusedDelivery: m.messageId } });
        this.refusedOn = text;
        throw new ExecutorError('not_ready', 'a permission dialog is on the screen');
      }
      this.refusedOn = null;
      this.receipt = { messageId: m.messageId, sent, baseline, resolve, died };
      try {
        await this.driver.submitPrompt(this.tmux, id.paneId, sent);
      } catch (err) {
        this.receipt = null;
        throw err;
      }
      if (guarded) await this.enterTaken(id.paneId);
    } finally {
      if (guarded) gate.end();
    }
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

  /**
   * Waits (bounded) until the CLI has taken the Enter: Claude's input box is empty again (a follow-up
   * is queued below it). Codex asks only once Bria's hook ended, so no wait is needed there.
   */
  private async enterTaken(paneId: string): Promise<void> {
    if (this.driver.executor !== 'claude') return;
    const deadline = Date.now() + ENTER_TAKEN_MS;
    while (Date.now() < deadline) {
      const box = claudePromptBox(await this.tmux.capture(paneId).catch(() => ''));
      if (box === '' || box === null) return;
      await sleep(25);
    }
  }

  private running(): Turn[] {
    return this.turns.filter((t) => !t.done);
  }

  /** One Esc. Resolves with what the CLI confirmed; never a second Esc on an empty Claude prompt. */
  async interrupt(): Promise<{ sent: boolean; confirmed: boolean; reason: string }> {
    if (this.state !== 'ready') return { sent: false, confirmed: false, reason: `session is ${this.state}` };
    const turns = this.running();
    if (turns.length === 0) return { sent: false, confirmed: false, reason: 'no current work' };
    const id = this.identity();
    const escAt = Date.now();
    await this.tmux.sendKeys(id.paneId, ['Escape']);
    const found = await awaitInterruptEvidence({
      escAt, timeoutMs: this.t.interruptMs,
      settled: async () => {
        await this.tailer?.readNow();
        return turns.every((t) => t.done);
      },
      idleStatus: () => this.driver.idleStatus(this.ctx()),
    });
    if (found.kind === 'journal') return { sent: true, confirmed: true, reason: 'journal' };
    const open = turns.filter((x) => !x.done);
    if (found.kind === 'idle') {
      for (const t of open) {
        t.done = true;
        this.emit({ type: 'interrupted', messageId: t.messageId, reason: 'interrupted before the first response byte', evidence: { status: found.evidence, nativeRef: t.nativeRef } });
      }
      if (!(await clearRefilledPrompt(this.tmux, id.paneId))) {
        // A later paste would be appended to the leftover text: no more deliveries into this pane.
        this.state = 'unconfirmed';
        this.emit({ type: 'unknown', messageId: null, reason: 'prompt box still holds the dropped text', evidence: { paneId: id.paneId } });
      }
      return { sent: true, confirmed: true, reason: 'idle status without a journal record' };
    }
    for (const t of open) {
      this.emit({ type: 'unknown', messageId: t.messageId, reason: 'no interrupt evidence in time', evidence: { nativeRef: t.nativeRef } });
    }
    return { sent: true, confirmed: false, reason: 'no evidence in time' };
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
  async attach(identity: SessionIdentity, o: { journalOffset?: number; watch?: { messageId: string; nativeRef: string }[] } = {}): Promise<{ ok: true } | { ok: false; mismatches: Mismatch[] }> {
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
    this.emit({ type: 'ready', nativeId: identity.nativeId, resumed: false, evidence: { attached: true, cliPid: identity.cliPid, journalOffset: this.journalOffset } });
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
      tmux: this.tmux, identity: this.identity(), intervalMs: this.t.monitorMs,
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

/** The journal's bytes from `offset` on (a compaction adds a few records). */
async function readFrom(path: string, offset: number): Promise<string> {
  const h = await open(path, 'r').catch(() => null);
  if (!h) return '';
  try {
    const size = (await h.stat()).size;
    if (size <= offset) return '';
    const buf = Buffer.alloc(Math.min(size - offset, 4 * 1024 * 1024));
    await h.read(buf, 0, buf.length, offset);
    return buf.toString('utf8');
  } finally {
    await h.close();
  }
}

/** What the journal says of a `/compact` (null: nothing yet); Claude's own output line, ANSI removed. */
export function compactEvidence(executor: 'claude' | 'codex', added: string): string | null {
  if (executor === 'codex') return /"type":"ContextCompaction"/.test(added) ? 'Compacted' : null;
  const at = added.indexOf('<command-name>/compact</command-name>');
  if (at < 0) return null;
  const out = /<local-command-stdout>(.*?)<\/local-command-stdout>/.exec(added.slice(at));
  if (!out?.[1]) return null;
  let line = out[1];
  try {
    line = JSON.parse(`"${out[1]}"`) as string;
  } catch {
    // kept as written
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes in Claude's output line
  return line.replace(/\u001b\[[0-9;]*m/g, '').trim().slice(0, 300) || 'Compacted';
}

/** The CLI's input line holds exactly `/compact` (Claude's box, Codex's `›` composer line). */
export function compactTyped(executor: 'claude' | 'codex', screen: string): boolean {
  if (executor === 'claude') return claudePromptBox(screen) === '/compact';
  return screen.split('\n').some((l) => /^\s*›\s\/compact\s*$/.test(l));
}

/**
 * One of the CLIs' permission or question dialogs at the bottom of the screen: the question and its
 * first choice highlighted (Claude `❯ 1. Yes`, Codex `› 1. Yes, proceed`; Claude's question picker).
 * Both must be in the last lines, so a model's answer quoting such words does not count.
 */
export function permissionDialogOnScreen(screen: string): boolean {
  const tail = screen.split('\n').slice(-25).join('\n');
  const asks = /Do you want to (proceed|make this edit|create|allow)|Would you like to run the following command|Enter to select · ↑\/↓ to navigate/i.test(tail);
  return asks && /^\s*[❯›]\s*1\.\s/m.test(tail);
}
