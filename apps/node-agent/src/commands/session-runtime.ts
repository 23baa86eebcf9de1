import {
  claudeDriver,
  codexDriver,
  type Env,
  type Executor,
  type ExecutorDriver,
  type HookLaunch,
  type PermissionMode,
  SessionHost,
  type SessionHostOptions,
  type SessionIdentity,
  Tmux,
} from '../executors/index.ts';
import { isAdopted } from '../handoff/adopt.ts';
import { type Draft, permissionModeOf, type SessionEventInput, type SessionEventName, type SessionEventOut } from '@bria/core/protocol';
import { DraftWatch } from '../draft/draft-watch.ts';
import type { HookChannel } from '../hooks/hook-channel.ts';
import { RECENT, recordHostEvent } from './record-host-event.ts';
import { type SessionRecord, SessionRegistry } from './registry.ts';

/** A session event under the generation it is reported for, checked by the compiler (protocol/session-events.ts). */
export type SessionEmit = SessionEventOut & { sessionId: string; generation: number };
export type Emit = (e: SessionEmit) => void;
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
  /**
   * Permission hooks (../hooks): when set, every start and resume gets the session's
   * PermissionRequest hook that reaches this channel (Claude `--settings` file, Codex `-c`).
   */
  hooks?: HookChannel;
  /**
   * Ephemeral frames to the hub (drafts, protocol/live-frames.ts): false when not sent. Without it
   * no draft is read. `connection` changes with every hub connection.
   */
  live?: { send: (frame: Draft) => boolean; connection: () => number };
}

/** The mode a start or resume command asks for, read with the executor's closed list (older stored values mapped). */
export const modeOf = (executor: Executor, m: string | undefined): PermissionMode => permissionModeOf(executor, m);

/**
 * What the session commands share: the durable registry, the CLI host of each session, the
 * per-session command chains, the starts watched on a dialog, and the one way events leave (`send`).
 */
export class SessionRuntime {
  readonly registry: SessionRegistry;
  readonly hosts = new Map<string, SessionHost>();
  /** The draft of each session's running turn (draft/draft-watch.ts), one per host. */
  readonly drafts = new Map<string, DraftWatch>();
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Starts left on a CLI dialog and watched until the user answers it (host, generation it reports under). */
  /** Starts waiting on a dialog: `since` is the generation the CLI was launched under, `generation` the latest start that kept it. */
  readonly dialogs = new Map<string, { host: SessionHost; generation: number; since?: number; paneId?: string }>();

  constructor(readonly o: SessionControlOptions) {
    this.registry = new SessionRegistry(o.dir);
  }

  /** Runs `fn` after the session's earlier commands. */
  serial<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.chains.get(sessionId) ?? Promise.resolve()).then(fn);
    this.chains.set(
      sessionId,
      run.catch(() => undefined),
    );
    return run;
  }

  /** Refuses a command issued under an older observer generation; adopts a newer one. */
  claim(sessionId: string, generation: number): string | null {
    const rec = this.registry.get(sessionId);
    if (rec && generation < rec.generation) return `stale generation ${generation} (current ${rec.generation})`;
    if (rec && generation > rec.generation) this.registry.put(sessionId, { generation });
    return null;
  }

  /** Sends an event under the session's current generation. */
  send<K extends SessionEventName>(sessionId: string, event: K, payload: SessionEventInput<K>): void {
    this.emitEvent(sessionId, { event, payload } as SessionEventOut);
  }

  /** Sends an event already built as a checked protocol event (e.g. by `mapHostEvent`). */
  emitEvent(sessionId: string, e: SessionEventOut): void {
    const generation = this.registry.get(sessionId)?.generation ?? 0;
    this.o.emit({ ...e, sessionId, generation });
  }

  /** Sends a turn fact and keeps it for a re-attach under a newer generation. */
  sendFact<K extends SessionEventName>(sessionId: string, event: K, payload: SessionEventInput<K>): void {
    const e = { event, payload } as SessionEventOut;
    this.emitEvent(sessionId, e);
    const rec = this.registry.get(sessionId);
    if (rec) this.registry.put(sessionId, { recent: [...(rec.recent ?? []), e].slice(-RECENT) });
  }

  /** A new CLI host for the session; the one it replaces is no longer observed. */
  /** The session's hook settings file for a start or resume, or undefined (no channel / Codex). */
  hookSettings(sessionId: string, executor: Executor): string | undefined {
    return this.o.hooks?.available && executor === 'claude' ? this.o.hooks.settingsFor(sessionId) : undefined;
  }

  /**
   * How a start or resume gets the session's permission hooks: nothing without a channel, nor while
   * it is off (not secured: the CLIs keep their own dialogs; `HookChannel.offReason`).
   */
  hookLaunch(sessionId: string, executor: Executor): HookLaunch {
    if (!this.o.hooks?.available) return {};
    return executor === 'claude' ? { settingsPath: this.o.hooks.settingsFor(sessionId) } : { codexHooks: this.o.hooks.codexConfigArgs(sessionId) };
  }

  private readonly userServers = new Map<string, Tmux>();

  /**
   * The tmux server a CLI's pane lives on: Bria's own, or for an adopted session (its identity names
   * the user's server by socket path, `isAdopted`) a `Tmux` on that server, one per server and
   * session, whose command client sits on the user's session and which never configures it.
   */
  tmuxFor(identity: SessionIdentity | null | undefined): Tmux {
    if (!identity || !isAdopted(identity)) return this.o.tmux;
    const key = `${identity.tmuxSocket}\n${identity.tmuxSession}`;
    let t = this.userServers.get(key);
    if (!t) {
      t = new Tmux({ socketName: identity.tmuxSocket, userServer: true, controlSession: identity.tmuxSession, runDir: this.o.tmux.runDir });
      this.userServers.set(key, t);
    }
    return t;
  }

  /** The pids of the adopted CLIs this agent runs: Bria's own for the guard and discovery. */
  adoptedPids(): number[] {
    return this.registry
      .all()
      .filter((r) => r.status === 'live' && r.identity && isAdopted(r.identity))
      .map((r) => r.identity!.cliPid);
  }

  newHost(sessionId: string, executor: Executor, nativeId?: string, tmux: Tmux = this.o.tmux): SessionHost {
    const base = executor === 'claude' ? claudeDriver : codexDriver;
    // Bria chooses a Claude session's id up front and stores it before the CLI starts.
    const driver: ExecutorDriver = nativeId ? { ...base, chooseNativeId: () => nativeId } : base;
    const host = new SessionHost({
      driver,
      tmux,
      bin: this.o.bins[executor],
      env: this.o.env,
      ...(this.o.hostTimeouts ? { timeouts: this.o.hostTimeouts } : {}),
    });
    this.hosts.get(sessionId)?.detach();
    this.hosts.set(sessionId, host);
    host.on((e) => recordHostEvent(this, sessionId, host, e));
    this.drafts.get(sessionId)?.close();
    this.drafts.delete(sessionId);
    const live = this.o.live;
    if (live) {
      const watch = new DraftWatch({
        executor,
        tmux,
        sessionId,
        identity: () => (this.hosts.get(sessionId) === host ? host.identityOrNull() : null),
        generation: () => this.registry.get(sessionId)?.generation ?? 0,
        send: live.send,
        connection: live.connection,
        onError: (err) => this.o.log('warn', 'agent.draft_read_failed', { sessionId, err: err.message.slice(0, 200) }),
      });
      host.on((e) => watch.onHostEvent(e));
      this.drafts.set(sessionId, watch);
    }
    return host;
  }

  /** The tmux session a CLI of this session and generation is launched in. */
  sessionName(sessionId: string, generation: number): string {
    return `bria-${sessionId.slice(0, 8)}-g${generation}`;
  }

  /** A dead pane of an earlier generation is only a leftover; a live one is never touched here. */
  async dropDeadPane(rec: SessionRecord | undefined): Promise<void> {
    const id = rec?.identity;
    // An adopted pane is the user's: never removed by Bria.
    if (!id || isAdopted(id)) return;
    const pane = await this.o.tmux.paneInfo(id.paneId).catch(() => null);
    if (pane?.dead) await this.o.tmux.killSession(id.tmuxSession).catch(() => undefined);
  }

  /** The open turns of a CLI that died, once the session has a live CLI again: unknown, never re-sent. */
  reportOrphans(sessionId: string): void {
    const orphans = this.registry.get(sessionId)?.orphans ?? [];
    for (const messageId of orphans) this.sendFact(sessionId, 'evidence_unknown', { messageId, processAlive: false });
    if (orphans.length > 0) this.registry.put(sessionId, { orphans: [] });
  }

  /** Outcomes are matched by message id and turn id, so a repeat never makes a second copy. */
  replayRecent(sessionId: string): void {
    for (const e of this.registry.get(sessionId)?.recent ?? []) this.emitEvent(sessionId, e);
  }
}
