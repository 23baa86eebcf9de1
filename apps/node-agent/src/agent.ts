import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import {
  type AgentFeature,
  type Command,
  type CommandAnswer,
  type Executor,
  GIT_COMMANDS,
  isGitCommand,
  type OptionalCommand,
  parseSessionCommand,
} from '@bria/core/protocol';
import { toDeskHolder } from './handoff/desk-guard.ts';
import { scanHolders } from './handoff/native-holders.ts';
import { DiscoveryFeed, handleSessionCommand, SessionControl } from './commands/index.ts';
import { readJournalCommand } from './commands/read-journal.ts';
import type { AgentConfig } from './env.ts';
import type { AgentLog } from './log.ts';
import { claudeConfigDir, codexHome, Tmux } from './executors/index.ts';
import { HubClient } from './hub-client/hub-client.ts';
import { TerminalWatch } from './terminal/terminal-watch.ts';
import { GitCommands } from './git/git-command.ts';
import { Ledger } from './ledger/ledger.ts';
import { crashPoint } from './test-crash.ts';
import { addedNames, cliEnvironment, isWithheld } from './cli-env.ts';
import { HookChannel } from './hooks/hook-channel.ts';
import { HookReporter } from './hooks/hook-reporter.ts';
import { REMOTE_ANSWERS_OFF_TEXT, socketFolder } from './hooks/hooks-folder.ts';
import { unavailableModes } from './unavailable-modes.ts';
import { bundleInfo, SOURCE_VERSION } from './bundle-info.ts';
import { warnUnverifiedClis } from './cli-version-check.ts';

const run = promisify(execFile);
/** Reported in the hello: a bundle's `<package version>-<content hash>`, or the checkout's package version. */
export const AGENT_VERSION = bundleInfo?.version ?? SOURCE_VERSION;
/** The optional commands (protocol OPTIONAL_COMMANDS) this agent handles; sent in its hello. */
export const AGENT_CAPABILITIES: readonly (OptionalCommand | AgentFeature)[] = [
  'read_journal',
  'answer_permission',
  'answer_dialog',
  'compact_context',
  'adopt_in_place',
  ...GIT_COMMANDS,
  'handoff',
  'terminal',
];

export interface ExecutorProbe {
  executor: Executor;
  available: boolean;
  version?: string;
}

/** Finds which CLIs this computer can run (the user's own installation, as configured). */
export async function probeExecutors(cfg: Pick<AgentConfig, 'claudeBin' | 'codexBin' | 'cliEnv'>): Promise<ExecutorProbe[]> {
  const env = cliEnvironment(cfg.cliEnv ?? process.env);
  const probe = async (executor: Executor, bin: string): Promise<ExecutorProbe> => {
    try {
      const { stdout } = await run(bin, ['--version'], { timeout: 15_000, env });
      return { executor, available: true, version: stdout.trim().split('\n')[0]?.slice(0, 120) };
    } catch {
      return { executor, available: false };
    }
  };
  return Promise.all([probe('claude', cfg.claudeBin), probe('codex', cfg.codexBin)]);
}

/**
 * The agent's permission-hook channel: its record in `<dir>/hooks`, its socket there too when the
 * path fits a Unix socket, else in a folder of the agent under `$XDG_RUNTIME_DIR`; never in a shared
 * folder (hooks-folder.ts). `sessionRoot` says which sessions may ask, from which process tree.
 */
function hookChannelFor(cfg: AgentConfig, log: AgentLog, sessionRoot: (sessionId: string) => number | null): HookChannel {
  const boundMs = cfg.permissionWaitMs;
  const program = bundledHookProgram(cfg.dir);
  const dir = path.join(cfg.dir, 'hooks');
  const socketDir = socketFolder({ stateDir: dir, runtimeDir: (cfg.cliEnv ?? process.env).XDG_RUNTIME_DIR, agentDir: cfg.dir });
  if (socketDir !== dir) log('info', 'agent.hook_channel_short_path', { socketDir });
  return new HookChannel({ dir, socketDir, sessionRoot, log, ...(boundMs ? { boundMs } : {}), ...(program ? { program } : {}) });
}

/**
 * The one-file agent has no `permission-hook.mjs` beside it: it writes the copy it carries to
 * `<agent dir>/bin/permission-hook-<version>.mjs` (0600 in 0700; node only reads it). Null when
 * run from the checkout.
 */
function bundledHookProgram(agentDir: string): string | undefined {
  if (!bundleInfo) return undefined;
  const dir = path.join(agentDir, 'bin');
  const file = path.join(dir, `permission-hook-${bundleInfo.version}.mjs`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  let same = false;
  try {
    same = readFileSync(file, 'utf8') === bundleInfo.hookSource;
  } catch {}
  if (!same) writeFileSync(file, bundleInfo.hookSource, { mode: 0o600 });
  return file;
}

/** The node agent: one outbound hub connection, a durable ledger and the command handlers. */
export class Agent {
  readonly ledger: Ledger;
  readonly client: HubClient;
  readonly control: SessionControl;
  readonly discovery: DiscoveryFeed;
  private executors: ExecutorProbe[] = [];
  private discoveryStarted = false;
  private readonly tmux: Tmux;
  readonly hooks: HookChannel;
  private readonly reporter: HookReporter;
  /** The channel's `open` has run (until then it is off only for not being open yet). */
  private hooksTried = false;
  private readonly terminal: TerminalWatch;
  private readonly git: GitCommands;

  constructor(
    readonly cfg: AgentConfig,
    private readonly log: AgentLog,
  ) {
    this.ledger = new Ledger(cfg.dir, () => randomUUID(), { log });
    this.client = new HubClient({
      url: cfg.hubUrl,
      token: cfg.token,
      ledger: this.ledger,
      log,
      ...(cfg.ca ? { ca: cfg.ca } : {}),
      ...(cfg.caSha256 ? { caSha256: cfg.caSha256 } : {}),
      hello: () => ({
        agentVersion: AGENT_VERSION,
        hostname: hostname(),
        executors: this.executors,
        // A hooks channel that could not be secured says so (the dashboard shows why remote answers are off).
        capabilities: [...AGENT_CAPABILITIES, ...(this.hooks.offReason && this.hooksTried ? [`remote_answers_off:${this.hooks.offReason}` as const] : [])],
        unavailableModes: unavailableModes(cliEnvironment(cfg.cliEnv ?? process.env)),
      }),
      onCommand: (cmd) => this.handle(cmd),
      onInterrupted: (rec) => this.control.interruptedResult(rec),
      onTerminal: (t) => this.terminal.onFrame(t),
    });
    // The CLIs get the agent's own environment, so the user's settings and logins apply, minus
    // Bria's own variables (tokens, database URL): the tmux server and its panes' shells too.
    const cliEnv = cliEnvironment(cfg.cliEnv ?? process.env);
    const withheld = addedNames(process.env);
    const tmux = new Tmux({ socketName: cfg.tmuxSocket, runDir: path.join(cfg.dir, 'tmux'), env: cliEnv, withheld: (name) => isWithheld(name, withheld) });
    this.tmux = tmux;
    // A hook may speak for a live session of this agent only, from inside that session's pane.
    this.hooks = hookChannelFor(cfg, log, (sessionId) => {
      if (this.control.registry.get(sessionId)?.status !== 'live') return null;
      try {
        return this.control.host(sessionId)?.identity().panePid ?? null;
      } catch {
        return null;
      }
    });
    this.control = new SessionControl({
      dir: path.join(cfg.dir, 'sessions'),
      attachmentsDir: path.join(cfg.dir, 'attachments'),
      tmux,
      env: cliEnv,
      log,
      hooks: this.hooks,
      bins: { claude: cfg.claudeBin, codex: cfg.codexBin },
      emit: (e) => void this.client.emitEvent(e),
      live: { send: (frame) => this.client.sendLive(frame), connection: () => this.client.liveConnection },
    });
    // Git runs as the user with the CLIs' environment: hooks it runs never see Bria's own variables.
    this.git = new GitCommands({ env: cliEnv, ...(cfg.worktreesDir ? { worktreesDir: cfg.worktreesDir } : {}) });
    this.terminal = new TerminalWatch({
      tmux,
      identity: (sessionId) => this.control.host(sessionId)?.identityOrNull() ?? null,
      tmuxFor: (identity) => this.control.tmuxFor(identity),
      send: (frame) => this.client.sendLive(frame),
      dialogOpen: (sessionId) => this.hooks.pending(sessionId).length > 0,
      log: (level, msg, fields) => log(level, msg, fields),
    });
    this.reporter = new HookReporter({
      channel: this.hooks,
      emit: (e) => void this.client.emitEvent(e),
      generationOf: (sessionId) => this.control.registry.get(sessionId)?.generation ?? null,
      log: (level, msg, fields) => log(level, msg, fields),
    });
    this.discovery = new DiscoveryFeed(
      { claudeHome: claudeConfigDir(cliEnv), codexHome: codexHome(cliEnv), stateDir: cfg.dir },
      (diff) => void this.client.emitEvent({ event: 'discovery_diff', payload: diff }),
      async () => {
        const briaServerPid = await tmux.serverPid().catch(() => null);
        const briaPids = this.control.adoptedPids();
        // With sessions running in it, Bria's tmux server exists: a pid that cannot be read now (a tmux
        // call failed under load) would make every Bria CLI look like one started at the desk. This
        // look is skipped instead (the feed keeps what it knew; the next look tries again). Adopted
        // sessions live in the user's own tmux and do not need Bria's server.
        if (briaServerPid === null && this.control.hostCount > briaPids.length) throw new Error('the agent tmux server pid is unknown');
        const all = await scanHolders({ claudeHome: claudeConfigDir(cliEnv), briaServerPid, briaPids });
        return all.filter((h) => !h.bria).map((h) => ({ executor: h.executor, nativeId: h.nativeId, holder: toDeskHolder(h) }));
      },
    );
  }

  async start(): Promise<void> {
    // Start scripts an older agent left behind hold a whole environment; nothing is starting yet.
    const stale = await this.tmux.removeStaleScripts();
    if (stale > 0) this.log('info', 'agent.stale_scripts_removed', { count: stale });
    this.executors = await probeExecutors(this.cfg);
    warnUnverifiedClis(this.log, this.executors);
    // Commands an earlier run died running are answered first (never run again): their answers
    // precede the re-attach events in the ledger, so the hub learns the delivery outcome before
    // anything about the turn it may have started.
    await this.client.answerAllInterrupted();
    // Sessions this agent ran before a restart are re-attached first: their events are durable in
    // the ledger and reach the hub right after the welcome.
    await this.control.restore();
    // Requests an earlier run left pending wait for their hooks to reconnect (or end as lost). A
    // channel that cannot listen leaves the CLIs their own dialogs (the hook finds no agent and
    // prints nothing): the agent still runs sessions, and says why remote answers are off.
    await this.hooks.open().catch((err: Error) => {
      this.hooksTried = true;
      const reason = this.hooks.offReason ?? 'listen_failed';
      this.log('error', 'agent.hook_channel_failed', { err: err.message, reason, text: REMOTE_ANSWERS_OFF_TEXT[reason] });
    });
    this.client.on('welcome', () => {
      if (this.discoveryStarted) return;
      this.discoveryStarted = true;
      this.discovery.start().catch((err: Error) => this.log('warn', 'agent.discovery_failed', { err: err.message }));
    });
    this.client.start();
  }

  private handle(cmd: Command): Promise<CommandAnswer> {
    if (cmd.command === 'deliver') crashPoint('deliver:received');
    if (isGitCommand(cmd.command)) return this.git.run(cmd.command, cmd.payload);
    switch (cmd.command) {
      case 'probe':
        return probeExecutors(this.cfg).then((executors) => ({ ok: true, executors, hostname: hostname() }));
      case 'read_journal':
        return readJournalCommand(cmd.payload, {
          claudeHome: claudeConfigDir(this.cfg.cliEnv ?? process.env),
          codexHome: codexHome(this.cfg.cliEnv ?? process.env),
          archiveDir: path.join(this.cfg.dir, 'sessions', 'archive'),
        });
      case 'answer_permission': {
        // Never queued behind the session's commands: a delivery waiting for its receipt must not hold an answer.
        const parsed = parseSessionCommand('answer_permission', cmd.payload);
        if (!parsed.ok) return Promise.resolve({ ok: false, code: 'invalid_payload', error: `invalid payload: ${parsed.error.slice(0, 300)}` });
        return Promise.resolve(this.reporter.answer(parsed.payload));
      }
      case 'answer_dialog': {
        const parsed = parseSessionCommand('answer_dialog', cmd.payload);
        if (!parsed.ok || !cmd.sessionId)
          return Promise.resolve({ ok: false, code: 'invalid_payload', error: `invalid payload: ${parsed.ok ? 'no session' : parsed.error.slice(0, 300)}` });
        return this.control.answerDialog(cmd.sessionId, parsed.payload);
      }
      case 'archive_journal':
        return Promise.resolve({ ok: false, code: 'unsupported', error: `The agent (version ${AGENT_VERSION}) archives journals as part of close_session.` });
      default: {
        // No await before this call: commands of one session are queued in arrival order.
        const run = handleSessionCommand(cmd, this.control, this.discovery);
        const sessionId = cmd.sessionId;
        if (sessionId && (cmd.command === 'attach_session' || cmd.command === 'resume_session')) {
          // After its answer (so the hub has the new observer first): requests still open in the CLI
          // are told again under the new generation — one told under the old generation while the
          // hub was away was refused as stale, and without a prompt row nobody could answer it
          // (docs/reliability.md). The hub stores a request once by its id.
          void run.then(
            (r) => {
              if (r.ok) setImmediate(() => this.reporter.reannounce(sessionId));
            },
            () => undefined,
          );
        }
        return run;
      }
    }
  }

  async stop(): Promise<void> {
    // Deliberately nothing is sent to the CLIs: they keep running in tmux without the agent.
    this.control.detachAll();
    this.terminal.close();
    this.discovery.close();
    await this.hooks.close();
    await this.client.stop();
  }
}
