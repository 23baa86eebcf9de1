import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Attachment } from '@bria/core/protocol';
import { archiveJournal, restoreJournal } from '../archive/index.ts';
import {
  claudeDriver, codexDriver, type Env, type Executor, type ExecutorDriver, ExecutorError, type HostEvent,
  nativeIdRefusal, type PermissionMode, SessionHost, type SessionHostOptions, type SessionIdentity, type Tmux,
} from '../executors/index.ts';
import { isAlive, procStat } from '../executors/proc-tree.ts';
import { identityFromReport, mapHostEvent, reportIdentity } from './host-event-map.ts';
import { AttachmentNotStored, storeAttachments, textWithAttachments } from './session-attachments.ts';
import { waitOutStartDialog } from './blocked-start.ts';
import { journalHoldsConversation } from './journal-content.ts';
import { nativeConversationOnDisk } from './native-conversation.ts';
import { resumeFolderRefusal } from './resume-folder.ts';
import { DELIVERY_MARKS, type SessionRecord, SessionRegistry } from './registry.ts';
import { crashPoint } from '../test-crash.ts';

export type Emit = (e: { event: string; sessionId: string; generation: number; payload: Record<string, unknown> }) => void;
export type Log = (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
export type Result = Record<string, unknown>;

export interface SessionControlOptions {
  dir: string;
  /** Bria-owned root of the files users sent: `<root>/<sessionId>/<messageId>-<name>` (default `<dir>/attachments`). */
  attachmentsDir?: string;
  tmux: Tmux;
  bins: Record<Executor, string>;
  /** The CLIs' whole environment: the agent's own, passed through unchanged. */
  env: Env;
  emit: Emit;
  log: Log;
  /** The CLI hosts' waits (tests shorten them; production keeps the host's defaults). */
  hostTimeouts?: SessionHostOptions['timeouts'];
}

const RECENT = 24;
const MODES: readonly PermissionMode[] = ['default', 'accept-edits', 'full-access'];
const modeOf = (m: string | undefined): PermissionMode => (MODES as readonly string[]).includes(m ?? '') ? (m as PermissionMode) : 'default';

/**
 * Runs the hub's session commands against real CLIs and remembers, on disk, which process each Bria
 * session is. Commands of one session run one after another; an interrupt does not wait behind them.
 * Nothing here ever sends a key because the hub went away, the agent stopped or a read failed.
 */
export class SessionControl {
  readonly registry: SessionRegistry;
  private readonly hosts = new Map<string, SessionHost>();
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Starts left on a CLI dialog and watched until the user answers it (host, generation it reports under). */
  private readonly dialogs = new Map<string, { host: SessionHost; generation: number }>();

  constructor(private readonly o: SessionControlOptions) {
    this.registry = new SessionRegistry(o.dir);
  }

  /** Runs `fn` after the session's earlier commands. */
  serial<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.chains.get(sessionId) ?? Promise.resolve()).then(fn);
    this.chains.set(sessionId, run.catch(() => undefined));
    return run;
  }

  /** Refuses a command issued under an older observer generation; adopts a newer one. */
  claim(sessionId: string, generation: number): string | null {
    const rec = this.registry.get(sessionId);
    if (rec && generation < rec.generation) return `stale generation ${generation} (current ${rec.generation})`;
    if (rec && generation > rec.generation) this.registry.put(sessionId, { generation });
    return null;
  }

  host(sessionId: string): SessionHost | undefined {
    return this.hosts.get(sessionId);
  }

  private send(sessionId: string, event: string, payload: Record<string, unknown>): void {
    const generation = this.registry.get(sessionId)?.generation ?? 0;
    this.o.emit({ event, sessionId, generation, payload });
  }

  private newHost(sessionId: string, executor: Executor, nativeId?: string): SessionHost {
    const base = executor === 'claude' ? claudeDriver : codexDriver;
    // Bria chooses a Claude session's id up front and stores it before the CLI starts.
    const driver: ExecutorDriver = nativeId ? { ...base, chooseNativeId: () => nativeId } : base;
    const host = new SessionHost({ driver, tmux: this.o.tmux, bin: this.o.bins[executor], env: this.o.env, ...(this.o.hostTimeouts ? { timeouts: this.o.hostTimeouts } : {}) });
    this.hosts.get(sessionId)?.detach();
    this.hosts.set(sessionId, host);
    host.on((e) => this.onHostEvent(sessionId, host, e));
    return host;
  }

  private onHostEvent(sessionId: string, host: SessionHost, e: HostEvent): void {
    if (this.hosts.get(sessionId) !== host) return;
    let rec = this.registry.get(sessionId);
    if (!rec) return;
    const journalBefore = rec.identity?.journalPath ?? null;
    if (e.type === 'accepted') {
      crashPoint('deliver:receipt');
      rec = this.registry.put(sessionId, {
        turns: [...rec.turns.filter((t) => t.messageId !== e.messageId), { messageId: e.messageId, nativeRef: e.nativeRef }],
        unconfirmed: rec.unconfirmed.filter((m) => m !== e.messageId),
        deliveries: rec.deliveries?.map((d) => (d.messageId === e.messageId ? { ...d, nativeRef: e.nativeRef } : d)),
        identity: safeIdentity(host) ?? rec.identity,
      });
    }
    const outs = mapHostEvent(rec, e);
    // A Codex rollout path is known only once the first prompt created the file (and a Claude journal
    // path left out at a re-attach before it existed): the hub's stored identity learns it here.
    if (e.type === 'accepted' && rec.identity?.journalPath && rec.identity.journalPath !== journalBefore) {
      for (const out of outs) if (out.event === 'turn_accepted') out.payload.identity = reportIdentity(rec.identity);
    }
    for (const out of outs) this.send(sessionId, out.event, out.payload);
    // Kept for a replay under a newer generation, without the identity: by then it may name a dead process.
    const turnEvents = outs.filter((x) => x.event.startsWith('turn_')).map(({ event, payload: { identity: _, ...payload } }) => ({ event, payload }));
    if (turnEvents.length > 0) rec = this.registry.put(sessionId, { recent: [...(rec.recent ?? []), ...turnEvents].slice(-RECENT) });
    const ended = (e.type === 'completed' || e.type === 'interrupted' || e.type === 'api_error' || e.type === 'unknown') ? e.messageId : null;
    if (ended) {
      const turns = rec.turns.filter((t) => t.messageId !== ended);
      // With no turn open, everything read so far is settled: a restart may continue from here.
      this.registry.put(sessionId, { turns, unconfirmed: rec.unconfirmed.filter((m) => m !== ended), ...(turns.length === 0 ? { journalOffset: host.journalOffset } : {}) });
    }
    if (e.type === 'exited' && !e.expected) this.registry.put(sessionId, { status: 'exited' });
    if (e.type === 'accepted') crashPoint('deliver:accepted');
  }

  private sessionName(sessionId: string, generation: number): string {
    return `bria-${sessionId.slice(0, 8)}-g${generation}`;
  }

  /** A dead pane of an earlier generation is only a leftover; a live one is never touched here. */
  private async dropDeadPane(rec: SessionRecord | undefined): Promise<void> {
    const id = rec?.identity;
    if (!id) return;
    const pane = await this.o.tmux.paneInfo(id.paneId).catch(() => null);
    if (pane?.dead) await this.o.tmux.killSession(id.tmuxSession).catch(() => undefined);
  }

  async start(sessionId: string, p: { generation: number; executor: Executor; folder: string; permissionMode: string; nativeSessionId?: string }): Promise<Result> {
    const rec = this.registry.get(sessionId);
    const live = this.hosts.get(sessionId);
    if (rec?.status === 'live' && rec.identity && live) {
      // Idempotent: the CLI of this session already runs; it is reported, never started twice.
      this.send(sessionId, 'session_ready', { identity: reportIdentity(rec.identity) });
      return { ok: true, alreadyRunning: true };
    }
    const dialog = this.dialogs.get(sessionId);
    if (dialog && this.hosts.get(sessionId) === dialog.host && !rec?.identity && rec?.status === 'live') {
      // Its CLI still waits for the user on a dialog: asked again (recovery retry), that same CLI is
      // kept and watched under the new generation — never ended and shown again every minute.
      dialog.generation = p.generation;
      return { ok: false, blocked: true, error: 'the CLI waits for the user to answer its dialog on the computer' };
    }
    if (rec?.identity && !(await processGone(rec.identity))) {
      // The CLI this session was bound to still runs (the hub asks for a start while recovering a
      // session that never took a message): it is bound again exactly, never doubled by a second CLI.
      return this.bind(sessionId, rec.identity);
    }
    let typed = mayHaveTyped(rec);
    if (typed && rec && onlyUnboundMarks(rec) && (await nativeConversationOnDisk(rec, this.o.env)) === false) {
      // Marks of pastes that never got a receipt, and the dead CLI's own store holds no conversation
      // under its id: no prompt was ever submitted, so nothing reached a model and there is nothing a
      // start again could replace (chaos seed 6025: refusing here left the session waiting for ever).
      this.o.log('info', 'agent.start_past_unbound_marks', { sessionId, messages: rec.deliveries?.map((d) => d.messageId) ?? [] });
      typed = null;
    }
    if (typed) {
      // Starting again is only for a CLI that never held a conversation; here something may have
      // reached the earlier one. Nothing is started; the session keeps waiting with the reason.
      this.o.log('warn', 'agent.start_refused', { sessionId, reason: typed });
      this.send(sessionId, 'resume_failed', { reason: `not started again: ${typed}`, code: 'conversation_may_exist' });
      return { ok: false, error: `not started again: ${typed}`, refused: true };
    }
    await this.dropDeadPane(rec);
    // A CLI of an earlier attempt that was never confirmed (no identity recorded) never received a
    // key and cannot be bound: it is ended first, so two CLIs never share one session id.
    const earlier = !rec?.identity && live ? safeIdentity(live) : null;
    if (earlier) await this.o.tmux.killSession(earlier.tmuxSession).catch(() => undefined);
    this.registry.put(sessionId, { executor: p.executor, folder: p.folder, generation: p.generation, status: 'live', identity: null, turns: [], unconfirmed: [], deliveries: [], recent: [], journalOffset: 0 });
    crashPoint('start:launching');
    const host = this.newHost(sessionId, p.executor, p.nativeSessionId);
    const startedAt = Date.now();
    try {
      const id = await host.start({ cwd: p.folder, permissionMode: modeOf(p.permissionMode), sessionName: this.sessionName(sessionId, p.generation) });
      this.registry.put(sessionId, { identity: id });
      this.send(sessionId, 'session_ready', { identity: reportIdentity(id) });
      return { ok: true, nativeSessionId: id.nativeId };
    } catch (err) {
      if (err instanceof ExecutorError && err.code === 'blocked_on_prompt') this.watchBlockedStart(sessionId, host, err, p, startedAt);
      return this.launchFailed(sessionId, host, err, 'start');
    }
  }

  /**
   * A start that ended on a dialog the CLI shows (trust, permission, login): the CLI is left on it
   * (never answered by Bria; the chat was told its text as `blocked_on_prompt`) and watched until the
   * user answers it on the computer. Then the start is finished and `session_ready` sent, so the
   * session does not stay Starting for ever; a CLI that died instead is a verified exit (the hub
   * starts it again on its recovery schedule). Nothing was ever typed into it.
   */
  private watchBlockedStart(sessionId: string, host: SessionHost, err: ExecutorError, p: { generation: number; executor: Executor; nativeSessionId?: string }, startedAt: number): void {
    const identity = err.details.identity as SessionIdentity | undefined;
    if (!identity) return;
    const watch = { host, generation: p.generation };
    this.dialogs.set(sessionId, watch);
    const current = () => {
      const rec = this.registry.get(sessionId);
      return this.dialogs.get(sessionId) === watch && this.hosts.get(sessionId) === host && rec?.generation === watch.generation && rec.status === 'live' && !rec.identity;
    };
    const driver = p.executor === 'claude' ? claudeDriver : codexDriver;
    const reported = typeof err.details.promptText === 'string' ? err.details.promptText : null;
    void waitOutStartDialog({
      tmux: this.o.tmux, driver, env: this.o.env, identity, expectedId: p.nativeSessionId ?? null, startedAt, current, reported,
      onBlocked: (text) => this.send(sessionId, 'blocked_on_prompt', { text: text.slice(0, 4000) }),
    }).then((r) => this.serial(sessionId, async () => {
      const still = current();
      if (this.dialogs.get(sessionId) === watch) this.dialogs.delete(sessionId);
      if (!still) return;
      this.o.log('info', 'agent.blocked_start_ended', { sessionId, state: r.state, ...(r.state === 'mismatch' ? { reason: r.reason } : {}) });
      if (r.state === 'ready') {
        const h = this.newHost(sessionId, p.executor, r.identity.nativeId);
        // Claude's journal appears only with the first prompt: until then it is found at the first delivery.
        const j = r.identity.journalPath;
        const a = await h.attach({ ...r.identity, journalPath: j && existsSync(j) ? j : null });
        if (a.ok) {
          const id = safeIdentity(h) ?? r.identity;
          this.registry.put(sessionId, { identity: id });
          this.send(sessionId, 'session_ready', { identity: reportIdentity(id) });
          return;
        }
      }
      if (r.state === 'abandoned') return;
      // Died on (or after) its dialog, or not the CLI asked for: ended, never bound.
      if (r.state !== 'dead') await this.o.tmux.killSession(identity.tmuxSession).catch(() => undefined);
      this.registry.put(sessionId, { status: 'exited' });
      this.send(sessionId, 'process_exited', { pids: [identity.cliPid], exitStatus: r.state === 'dead' ? r.exitStatus : null, paneDead: true, verified: true });
    })).catch((e: Error) => this.o.log('error', 'agent.blocked_start_watch_failed', { sessionId, err: e.message }));
  }

  async resume(sessionId: string, given: { generation: number; executor: Executor; folder: string; nativeSessionId: string; permissionMode?: string; archivedJournal?: { path: string; sizeBytes: number; sha256: string } }): Promise<Result> {
    // The id lands on the CLI's command line: anything but the CLI's own id format is refused
    // before anything is touched.
    const refusal = nativeIdRefusal(given.executor, given.nativeSessionId);
    if (refusal) {
      this.o.emit({ event: 'resume_failed', sessionId, generation: given.generation, payload: { reason: refusal } });
      return { ok: false, error: refusal, refused: true };
    }
    // An archived journal is read and copied only from this agent's own archive folder.
    const archiveRefusal = given.archivedJournal && !isInsideFolder(path.join(this.o.dir, 'archive'), given.archivedJournal.path)
      ? `archived journal not used: ${JSON.stringify(given.archivedJournal.path.slice(0, 200))} is outside this agent's archive folder`
      : null;
    const p = archiveRefusal ? { ...given, archivedJournal: undefined } : given;
    if (archiveRefusal) this.o.log('warn', 'agent.archive_path_refused', { sessionId });
    const rec = this.registry.get(sessionId);
    const live = this.hosts.get(sessionId);
    if (rec?.status === 'live' && rec.identity?.nativeId === p.nativeSessionId && live) {
      this.send(sessionId, 'resume_confirmed', { identity: reportIdentity(rec.identity) });
      return { ok: true, alreadyRunning: true };
    }
    const noFolder = await resumeFolderRefusal(p.folder);
    if (noFolder) {
      // Under the command's generation: a discovered session has no record here yet to take it from.
      this.o.emit({ event: 'resume_failed', sessionId, generation: p.generation, payload: { reason: noFolder } });
      return { ok: false, error: noFolder, refused: true };
    }
    if (rec?.status === 'closed' && journalState(rec, [rec.identity?.journalPath, p.archivedJournal?.path, rec.archivedJournal?.path]) === 'none') {
      // Closed before its CLI held any conversation (no journal, or one with no conversation in it,
      // and nothing ever typed): there is nothing to reopen, and no CLI is started to find that out
      // (domain README, decision 15).
      const reason = 'nothing to resume: this session was closed before it held any conversation (no journal was written)';
      this.send(sessionId, 'resume_failed', { reason });
      return { ok: false, error: reason, empty: true };
    }
    // Turns the dead process held ended without an outcome this agent saw: unknown, never re-sent.
    // They are written down before anything is launched and forgotten only once reported.
    const orphans = [...new Set([...(rec?.orphans ?? []), ...(rec?.status === 'exited' ? rec.turns.map((t) => t.messageId) : [])])];
    const restored = archiveRefusal ? { restoreError: archiveRefusal } : await this.restoreJournal(rec, p).catch((err: Error) => ({ restoreError: err.message }));
    await this.dropDeadPane(rec);
    // Outcomes this agent saw before the CLI died may have been refused as stale (sent under an
    // older generation, e.g. while the node was away): they are kept and re-reported after the
    // resume, matched by message and turn id, so a repeat never makes a second copy.
    const recent = rec?.recent ?? [];
    this.registry.put(sessionId, { executor: p.executor, folder: p.folder, generation: p.generation, status: 'live', turns: [], orphans, unconfirmed: [], deliveries: rec?.deliveries ?? [], recent, journalOffset: 0 });
    crashPoint('resume:launching');
    const host = this.newHost(sessionId, p.executor);
    try {
      const id = await host.resume({ nativeId: p.nativeSessionId, cwd: p.folder, permissionMode: modeOf(p.permissionMode), sessionName: this.sessionName(sessionId, p.generation) });
      crashPoint('resume:confirmed');
      this.registry.put(sessionId, { identity: id });
      this.send(sessionId, 'resume_confirmed', { identity: reportIdentity(id) });
      this.replayRecent(sessionId);
      this.reportOrphans(sessionId);
      return { ok: true, nativeSessionId: id.nativeId, ...restored };
    } catch (err) {
      return this.launchFailed(sessionId, host, err, 'resume');
    }
  }

  /** Puts Bria's archived copy back where the CLI keeps the journal, if the CLI lost it. */
  private async restoreJournal(rec: SessionRecord | undefined, p: { archivedJournal?: { path: string; sha256: string } }): Promise<Result> {
    const target = rec?.identity?.journalPath;
    if (!p.archivedJournal || !target || existsSync(target)) return {};
    const r = await restoreJournal({ archived: p.archivedJournal.path, targetPath: target, sha256: p.archivedJournal.sha256 });
    return { journalRestored: r.restored };
  }

  private async launchFailed(sessionId: string, host: SessionHost, err: unknown, what: 'start' | 'resume'): Promise<Result> {
    const e = err instanceof ExecutorError ? err : new ExecutorError(what === 'start' ? 'start_failed' : 'resume_failed', (err as Error).message);
    const said = typeof e.details.cliSaid === 'string' ? e.details.cliSaid : '';
    this.o.log('warn', `agent.${what}_failed`, { sessionId, code: e.code });
    if (e.code === 'blocked_on_prompt' && what === 'start') return { ok: false, error: e.message, blocked: true };
    if (what === 'resume') {
      // A CLI that came up but did not confirm the id, or never reached its prompt in time, is
      // ended: it is not (or not yet proven to be) the session asked for, and the hub's next
      // attempt launches another one, which it would hold the conversation against (Codex: "This
      // conversation is open in another app"; chaos seed 636).
      await host.close().catch(() => undefined);
      this.registry.put(sessionId, { status: 'exited' });
      // A dialog before the conversation reopens (folder trust, login) fails the resume too, with its
      // text as the cause: Bria never answers it, and a CLI left on it would be a second one beside
      // the next attempt's.
      const dialog = e.code === 'blocked_on_prompt' && typeof e.details.promptText === 'string' ? e.details.promptText.trim() : '';
      const reason = dialog ? `the CLI asks on the computer before it reopens the conversation (Bria never answers it): ${dialog}` : `${e.message}${said ? `: ${said}` : ''}`;
      this.send(sessionId, 'resume_failed', { reason: reason.slice(0, 500) });
      return { ok: false, error: e.message };
    }
    const exitStatus = typeof e.details.exitStatus === 'number' ? e.details.exitStatus : null;
    this.registry.put(sessionId, { status: 'exited' });
    if (e.code === 'start_failed') this.send(sessionId, 'process_exited', { pids: [], exitStatus, paneDead: true, verified: true });
    else this.send(sessionId, 'observer_lost', { reason: e.message.slice(0, 200) });
    return { ok: false, error: e.message };
  }

  async deliver(sessionId: string, p: { messageId: string; text: string; attachments?: Attachment[] }): Promise<Result> {
    const host = this.hosts.get(sessionId);
    const rec = this.registry.get(sessionId);
    // `typed: false` is a proof that nothing reached the pane: the hub may hand the message over again.
    if (!host || !rec || rec.status !== 'live') return { ok: false, typed: false, messageId: p.messageId, error: 'no live session here' };
    let text = p.text;
    if (p.attachments?.length) {
      try {
        text = textWithAttachments(p.text, await storeAttachments(this.o.attachmentsDir ?? path.join(this.o.dir, 'attachments'), sessionId, p.messageId, p.attachments), p.attachments);
      } catch (err) {
        if (!(err instanceof AttachmentNotStored)) throw err;
        this.o.log('warn', 'agent.attachment_not_stored', { sessionId, reason: err.message });
        return { ok: false, typed: false, messageId: p.messageId, attachmentError: err.message, error: `attachment could not be stored: ${err.message}` };
      }
    }
    // Remembered before the paste: after a crash this message is re-checked, never typed again.
    const now = this.registry.get(sessionId) ?? rec;
    this.registry.put(sessionId, {
      unconfirmed: [...now.unconfirmed.filter((m) => m !== p.messageId), p.messageId],
      deliveries: [...(now.deliveries ?? []).filter((d) => d.messageId !== p.messageId), { messageId: p.messageId, at: Date.now() }].slice(-DELIVERY_MARKS),
    });
    try {
      const r = await host.deliver({ messageId: p.messageId, text });
      // Without a receipt in time the text may or may not have reached the CLI: unknown, never retyped.
      return r.accepted ? { ok: true, delivery: 'accepted', messageId: p.messageId, nativeRef: r.nativeRef } : { ok: false, delivery: 'unknown', messageId: p.messageId, error: r.reason };
    } catch (err) {
      // Refused before the paste, or the paste failed because the CLI is verifiably gone: nothing reached it.
      const untyped = (err instanceof ExecutorError && err.code === 'not_ready') || (rec.identity !== null && (await processGone(rec.identity)));
      if (!untyped) throw err;
      const after = this.registry.get(sessionId);
      if (after) this.registry.put(sessionId, { unconfirmed: after.unconfirmed.filter((m) => m !== p.messageId), deliveries: after.deliveries?.filter((d) => d.messageId !== p.messageId) });
      return { ok: false, typed: false, messageId: p.messageId, error: (err as Error).message };
    }
  }

  async interrupt(sessionId: string): Promise<Result> {
    const host = this.hosts.get(sessionId);
    if (!host) return { ok: false, error: 'no live session here' };
    return { ok: true, ...(await host.interrupt()) };
  }

  async close(sessionId: string): Promise<Result> {
    const rec = this.registry.get(sessionId);
    if (!rec) return { ok: false, error: 'unknown session' };
    if (rec.status === 'closed') {
      // Asked again (the hub re-issues a close after a reconnect): the same verified facts, once more.
      this.send(sessionId, 'session_closed', { evidence: { verified: true, repeated: true, nativeSessionId: rec.identity?.nativeId ?? null, journal: closeJournal(rec, null, rec.archivedJournal) }, ...(rec.archivedJournal ? { archivedJournal: rec.archivedJournal } : {}) });
      return { ok: true, already: true };
    }
    let host = this.hosts.get(sessionId);
    if (!host && rec.identity) {
      host = this.newHost(sessionId, rec.executor);
      const a = await host.attach(rec.identity, { journalOffset: rec.journalOffset });
      if (!a.ok && !(await processGone(rec.identity))) {
        this.send(sessionId, 'identity_mismatch', { reason: 'identity_mismatch', expected: reportIdentity(rec.identity) });
        return { ok: false, error: 'identity mismatch', mismatches: a.mismatches.map((m) => m.field) };
      }
      if (!a.ok) return this.closed(sessionId, rec, { pids: [rec.identity.cliPid], lingering: [], exitStatus: null, paneDead: true, escalation: [] });
    }
    if (!host) return this.closed(sessionId, rec, { pids: [], lingering: [], exitStatus: null, paneDead: true, escalation: [] });
    const ev = await host.close();
    return this.closed(sessionId, rec, ev);
  }

  private async closed(sessionId: string, rec: SessionRecord, ev: { pids: number[]; lingering: number[]; exitStatus: number | null; paneDead: boolean; escalation: string[] }): Promise<Result> {
    const verified = ev.paneDead && ev.lingering.length === 0 && (rec.identity ? await processGone(rec.identity) : true);
    const journal = rec.identity?.journalPath ?? (this.hosts.get(sessionId) ? safeIdentity(this.hosts.get(sessionId)!)?.journalPath : null) ?? null;
    let archivedJournal: Result | undefined;
    if (verified && journal && existsSync(journal) && rec.identity?.nativeId) {
      archivedJournal = { ...(await archiveJournal({ file: journal, executor: rec.executor, nativeId: rec.identity.nativeId, dataDir: path.join(this.o.dir, 'archive') })) };
    }
    const evidence = {
      verified, pids: ev.pids.join(','), lingering: ev.lingering.join(','), exitStatus: ev.exitStatus, paneDead: ev.paneDead,
      escalation: ev.escalation.join(','), nativeSessionId: rec.identity?.nativeId ?? null,
      journal: closeJournal(rec, journal, archivedJournal),
    };
    if (verified) {
      if (rec.identity) await this.o.tmux.killSession(rec.identity.tmuxSession).catch(() => undefined);
      this.hosts.delete(sessionId);
      this.registry.put(sessionId, { status: 'closed', turns: [], unconfirmed: [], archivedJournal: (archivedJournal as SessionRecord['archivedJournal']) ?? null, ...(journal && rec.identity ? { identity: { ...rec.identity, journalPath: journal } } : {}) });
    }
    this.send(sessionId, 'session_closed', { evidence, ...(archivedJournal ? { archivedJournal } : {}) });
    return { ok: verified, evidence };
  }

  /**
   * Binds to the session's running CLI only if its whole identity still holds. A CLI that is verifiably
   * gone is reported as exited (the hub then resumes it exactly); anything else that differs is a
   * mismatch and never a reason to start another process.
   */
  async attach(sessionId: string, p: { executor: Executor; folder: string; identity: Record<string, unknown> }): Promise<Result> {
    const rec = this.registry.get(sessionId);
    const live = this.hosts.get(sessionId);
    const dialog = this.dialogs.get(sessionId);
    if (dialog && live === dialog.host && rec?.status === 'live' && !rec.identity) {
      // A start still waiting for the user on its dialog has nothing to re-attach to yet: its watch is
      // kept under this generation (as for a repeated start), so the answer on the computer still
      // makes the session Ready; dropping it here left the session recovering for ever.
      dialog.generation = rec.generation;
      return { ok: false, blocked: true, error: 'the CLI waits for the user to answer its dialog on the computer' };
    }
    if (live && rec?.status === 'live' && rec.identity) {
      this.send(sessionId, 'reattached', { identity: reportIdentity(safeIdentity(live) ?? rec.identity) });
      this.replayRecent(sessionId);
      return { ok: true, already: true };
    }
    const identity = rec?.identity ?? identityFromReport(p.identity);
    if (!rec) this.registry.put(sessionId, { executor: p.executor, folder: p.folder, identity, status: 'live', deliveries: [] });
    return this.bind(sessionId, identity);
  }

  /** Re-attach after an agent restart (or an attach command): the truthful event is sent either way. */
  async bind(sessionId: string, identity: SessionIdentity | null): Promise<Result> {
    const rec = this.registry.get(sessionId)!;
    if (!identity) {
      this.send(sessionId, 'identity_mismatch', { reason: 'not_found' });
      return { ok: false, error: 'no identity known for this session' };
    }
    if (await processGone(identity)) {
      this.registry.put(sessionId, { status: 'exited' });
      const exitStatus = await this.o.tmux.readExitStatus(identity.exitFile).catch(() => null);
      this.send(sessionId, 'process_exited', { pids: [identity.cliPid], exitStatus, paneDead: true, verified: true });
      return { ok: true, exited: true };
    }
    const host = this.newHost(sessionId, rec.executor);
    const watch = rec.turns.map((t) => ({ messageId: t.messageId, nativeRef: t.nativeRef }));
    const a = await host.attach(journalNotYetWritten(rec, identity) ? { ...identity, journalPath: null } : identity, { journalOffset: rec.journalOffset, watch });
    if (!a.ok) {
      this.hosts.delete(sessionId);
      this.o.log('warn', 'agent.attach_mismatch', { sessionId, fields: a.mismatches.map((m) => m.field) });
      this.send(sessionId, 'identity_mismatch', { reason: 'identity_mismatch', expected: reportIdentity(identity) });
      return { ok: false, mismatches: a.mismatches.map((m) => m.field) };
    }
    this.registry.put(sessionId, { status: 'live', identity: safeIdentity(host) ?? identity });
    this.send(sessionId, 'reattached', { identity: reportIdentity(safeIdentity(host) ?? identity) });
    this.replayRecent(sessionId);
    this.reportOrphans(sessionId);
    // Typed before the crash without a receipt the agent saw: only a re-check, never a second paste.
    for (const m of rec.unconfirmed) this.sendFact(sessionId, 'evidence_unknown', { messageId: m, processAlive: true });
    if (rec.unconfirmed.length > 0) this.registry.put(sessionId, { unconfirmed: [] });
    return { ok: true };
  }

  /** Sends a turn fact and keeps it for a re-attach under a newer generation. */
  private sendFact(sessionId: string, event: string, payload: Record<string, unknown>): void {
    this.send(sessionId, event, payload);
    const rec = this.registry.get(sessionId);
    if (rec) this.registry.put(sessionId, { recent: [...(rec.recent ?? []), { event, payload }].slice(-RECENT) });
  }

  /** The open turns of a CLI that died, once the session has a live CLI again: unknown, never re-sent. */
  private reportOrphans(sessionId: string): void {
    const orphans = this.registry.get(sessionId)?.orphans ?? [];
    for (const messageId of orphans) this.sendFact(sessionId, 'evidence_unknown', { messageId, processAlive: false });
    if (orphans.length > 0) this.registry.put(sessionId, { orphans: [] });
  }

  /** Outcomes are matched by message id and turn id, so a repeat never makes a second copy. */
  private replayRecent(sessionId: string): void {
    for (const e of this.registry.get(sessionId)?.recent ?? []) this.send(sessionId, e.event, e.payload);
  }

  /**
   * The answer for a session command an earlier run of this agent died running (its id is in the
   * ledger as received, never done). Nothing is run again; only what is known is reported:
   * - `deliver`: from the delivery mark (see `DeliveryMark`): `not_typed` (typed: false, the hub hands
   *   the message over again), `accepted` with the native ref of the receipt the agent bound, or
   *   `unknown` (never typed again, never guessed, never matched by text afterwards);
   * - `start_session` / `resume_session`: a CLI that was never confirmed (no identity recorded) is
   *   ended, since nothing was ever typed into it and nobody could bind it, and the session is marked
   *   exited, so the hub sees a verified exit and recovers it (see the engine's command-result);
   * - `close_session`, `interrupt`, `attach_session`: interrupted; the hub re-issues what it needs.
   */
  async interruptedResult(c: { command: string; sessionId?: string; messageId?: string; generation?: number }): Promise<Result> {
    const sessionId = c.sessionId;
    if (!sessionId) return { ok: false, error: 'interrupted by an agent restart' };
    const rec = this.registry.get(sessionId);
    if (c.command === 'deliver') {
      const messageId = c.messageId;
      if (!messageId) return { ok: false, delivery: 'unknown', error: 'interrupted by an agent restart' };
      const mark = rec?.deliveries?.find((d) => d.messageId === messageId);
      const turn = rec?.turns.find((t) => t.messageId === messageId);
      const nativeRef = mark?.nativeRef ?? turn?.nativeRef;
      if (nativeRef) return { ok: true, delivery: 'accepted', messageId, nativeRef, evidence: 'receipt bound before the agent stopped' };
      if (mark || rec?.unconfirmed.includes(messageId)) return { ok: false, delivery: 'unknown', messageId, error: 'the agent stopped between the paste and its receipt' };
      // A mark is written before every paste; without one (in a record that keeps marks) nothing was typed.
      if (!rec || rec.deliveries) return { ok: false, typed: false, delivery: 'not_typed', messageId, error: 'the agent stopped before typing' };
      return { ok: false, delivery: 'unknown', messageId, error: 'interrupted by an agent restart (no delivery marks in this record)' };
    }
    const launched = rec ? this.sessionName(sessionId, rec.generation) : null;
    if ((c.command === 'start_session' || c.command === 'resume_session') && rec && rec.identity?.tmuxSession !== launched && rec.status === 'live' && c.generation === rec.generation) {
      // Never confirmed (no identity recorded, or still the one of the dead process a resume was
      // replacing): no key was ever sent to it. Its tmux session is ended (a CLI started again
      // under the same id beside it would compete for the same journal).
      const name = launched!;
      const leftover = await this.o.tmux.killSession(name).then(() => true, () => false);
      this.registry.put(sessionId, { status: 'exited' });
      return { ok: false, error: `interrupted by an agent restart before the CLI was confirmed${leftover ? '; its tmux session was ended' : ''}`, leftoverEnded: leftover, exited: true };
    }
    return { ok: false, error: 'interrupted by an agent restart' };
  }

  /** After an agent restart: every session that was live is re-attached exactly (or reported gone). */
  async restore(): Promise<void> {
    for (const rec of this.registry.all()) {
      if (rec.status !== 'live') continue;
      if (!rec.identity) {
        await this.endUnconfirmed(rec);
        continue;
      }
      await this.bind(rec.sessionId, rec.identity).catch((err: Error) => this.o.log('error', 'agent.reattach_failed', { sessionId: rec.sessionId, err: err.message }));
    }
  }

  /**
   * A CLI this agent launched but never confirmed, found after its own restart: a start that ended
   * on a dialog and was being watched (the watch died with the earlier run). Nobody can bind it —
   * its identity was never recorded — and no key was ever sent to it, so it is ended and reported as
   * a verified exit: the hub starts the session again, and the new CLI shows its dialog (and the
   * chat its notice) once more. Left running, a second CLI would be started beside it.
   */
  private async endUnconfirmed(rec: SessionRecord): Promise<void> {
    const name = this.sessionName(rec.sessionId, rec.generation);
    const ended = await this.o.tmux.killSession(name).then(() => true, () => false);
    this.registry.put(rec.sessionId, { status: 'exited' });
    this.o.log('info', 'agent.unconfirmed_cli_ended', { sessionId: rec.sessionId, tmuxSession: name, ended });
    this.send(rec.sessionId, 'process_exited', { pids: [], exitStatus: null, paneDead: true, verified: true });
  }

  /** Observation ends; the CLIs keep running untouched in tmux. */
  detachAll(): void {
    for (const h of this.hosts.values()) h.detach();
  }
}

/**
 * Claude's journal path is known from the start, but the file appears only with the first prompt. A
 * missing journal of a session that never took one is not a different session (an agent restarted
 * before the first message could otherwise never re-attach); once a receipt was bound, or anything
 * was read from it, a missing journal stays an identity mismatch.
 */
function journalNotYetWritten(rec: SessionRecord, identity: SessionIdentity): boolean {
  if (!identity.journalPath || existsSync(identity.journalPath)) return false;
  if (!rec.deliveries) return false;
  const bound = rec.deliveries.some((d) => d.nativeRef) || rec.turns.length > 0 || rec.journalOffset > 0 || (rec.recent?.length ?? 0) > 0;
  return !bound;
}

/**
 * Why a start under this record could put a second CLI on a conversation that exists, or null when
 * nothing was ever typed into this session's CLI here: a delivery mark (written before every paste),
 * a bound or unconfirmed turn, a turn fact kept for replay, journal bytes read, or a journal file on
 * disk (Claude's appears with the first prompt; a Codex rollout path is learned with it).
 */
export function mayHaveTyped(rec: SessionRecord | undefined): string | null {
  if (!rec) return null;
  if (!rec.deliveries) return 'its record predates delivery marks (nothing is proven)';
  if (rec.deliveries.length > 0) return 'a message was typed into its CLI (delivery mark)';
  if (rec.turns.length > 0 || rec.unconfirmed.length > 0 || (rec.recent?.length ?? 0) > 0 || (rec.orphans?.length ?? 0) > 0) return 'its CLI took a turn';
  if (rec.journalOffset > 0) return 'its journal was read';
  const journal = rec.identity?.journalPath;
  if (journal && existsSync(journal) && journalHoldsConversation(journal)) return `its journal holds a conversation (${path.basename(journal)})`;
  return null;
}

/**
 * Whether the record's only trace of a message is delivery marks without a receipt (no bound or
 * open turn, no turn fact, no journal bytes read, no conversation in its known journal).
 */
function onlyUnboundMarks(rec: SessionRecord): boolean {
  const marks = rec.deliveries ?? [];
  return marks.length > 0 && marks.every((d) => !d.nativeRef) && mayHaveTyped({ ...rec, deliveries: [] }) === null;
}

/**
 * What a close found of the session's native journal when none was archived: `none` when no journal
 * file exists and nothing was ever typed into this session's CLI here (the CLI writes its journal only
 * with the first prompt), `missing` when something may have been typed but no file is found.
 */
function journalState(rec: SessionRecord, files: (string | null | undefined)[]): 'none' | 'missing' | 'present' {
  const existing = files.filter((f): f is string => typeof f === 'string' && existsSync(f));
  if (existing.some((f) => journalHoldsConversation(f))) return 'present';
  return mayHaveTyped({ ...rec, identity: null }) === null ? 'none' : 'missing';
}

/** The close evidence's `journal`: `archived`, `archived_empty` (a copy of a journal without any conversation), `none`, `missing`, `present`. */
function closeJournal(rec: SessionRecord, journal: string | null, archived: { path?: unknown } | null | undefined): string {
  const state = journalState(rec, [journal, rec.identity?.journalPath, typeof archived?.path === 'string' ? archived.path : null]);
  if (!archived) return state;
  return state === 'none' ? 'archived_empty' : 'archived';
}

/** Whether `file` is inside `folder`, also once symbolic links are resolved (a missing file: by its path only). */
function isInsideFolder(folder: string, file: string): boolean {
  const within = (root: string, f: string) => {
    const rel = path.relative(root, f);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  };
  if (!path.isAbsolute(file) || !within(path.resolve(folder), path.resolve(file))) return false;
  try {
    return within(realpathSync(folder), realpathSync(file));
  } catch {
    return !existsSync(file);
  }
}

function safeIdentity(host: SessionHost): SessionIdentity | null {
  try {
    return host.identity();
  } catch {
    return null;
  }
}

/** The CLI process is gone: its pid is dead or now names another process (different start time). */
export async function processGone(id: SessionIdentity): Promise<boolean> {
  if (!(await isAlive(id.cliPid))) return true;
  const st = await procStat(id.cliPid);
  return !st || st.startTime !== id.cliStartTime || st.state === 'Z';
}
