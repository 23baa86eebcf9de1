import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertSessionName, PANE_FORMAT, parsePaneLine, parsePaneList, type PaneInfo } from './pane-format.ts';
import { buildWrapperScript } from './shell-script.ts';
import { ControlClient, clientSettledVia, commandLine } from './control.ts';
import { PaneFollower } from './pane-follow.ts';
import { PANES_FORMAT, PANES_SUB, type PaneStates, parsePanesNotification } from './pane-subscription.ts';
import { runTmuxProcess, TmuxError } from './tmux-process.ts';
import type { NewSessionOptions, NewSessionResult, TmuxOptions } from './tmux-types.ts';

export type { PaneStates } from './pane-subscription.ts';
export { TmuxError } from './tmux-process.ts';

export type { NewSessionOptions, NewSessionResult, TmuxOptions } from './tmux-types.ts';

const KEEPER = 'bria-keeper';

/**
 * Adapter over one tmux server; every call is an argument array, never a shell string. Bria's own
 * private server by name (`-L`), or a server of the user's own by its socket path (`-S`,
 * `userServer`), whose panes an adopted session types into and which is never reconfigured.
 */
export class Tmux {
  readonly socketName: string;
  readonly runDir: string;
  /** A server of the user's own (`TmuxOptions.userServer`): only read, pasted into and sent keys. */
  readonly userServer: boolean;
  private readonly controlSession: string;
  private readonly bin: string;
  private readonly useControl: boolean;
  private readonly env: NodeJS.ProcessEnv | undefined;
  private readonly withheld: ((name: string) => boolean) | undefined;
  private ctl: ControlClient | null = null;
  private opening: Promise<ControlClient | null> | null = null;
  private ctlRetryAt = 0;
  private panes: PaneStates = null;
  private readonly paneListeners = new Set<(panes: PaneStates) => void>();

  constructor(opts: TmuxOptions) {
    this.socketName = opts.socketName;
    this.runDir = opts.runDir;
    this.userServer = opts.userServer ?? false;
    this.controlSession = opts.controlSession ?? KEEPER;
    if (this.userServer !== opts.socketName.startsWith('/')) throw new TmuxError("a user server is addressed by its socket path, Bria's by its name", '');
    this.bin = opts.tmuxBin ?? 'tmux';
    this.useControl = opts.control ?? true;
    this.env = opts.env ? { ...opts.env } : undefined;
    this.withheld = opts.withheld;
  }

  /** The open control client, opening it when needed; null without a server (retried after 1 s). */
  private async control(): Promise<ControlClient | null> {
    if (!this.useControl) return null;
    if (this.ctl && !this.ctl.closed) return this.ctl;
    if (this.opening) return this.opening;
    if (Date.now() < this.ctlRetryAt) return null;
    this.opening = ControlClient.open(this.bin, this.socketName, this.controlSession).then((c) => {
      this.opening = null;
      if (!c) {
        this.ctlRetryAt = Date.now() + 1000;
        return null;
      }
      this.ctl = c;
      c.onNotification((line) => this.onNotification(line));
      c.onClose(() => {
        if (this.ctl === c) this.ctl = null;
        this.setPanes(null);
      });
      if (this.paneListeners.size > 0) this.subscribePanes(c);
      return c;
    });
    return this.opening;
  }

  /** The calls that would start, configure, kill or clean a server: refused on a user's server. */
  private ownServerOnly(what: string): void {
    if (this.userServer) throw new TmuxError(`tmux ${what}: refused on the user's own tmux server (${this.socketName})`, '');
  }

  /** Pid of the open control-mode client (a long-lived child of this process), if any. */
  get controlClientPid(): number | undefined {
    return this.ctl && !this.ctl.closed ? this.ctl.pid : undefined;
  }

  /** Follows one pane's output (pane-follow.ts); null when there is no such session. */
  followPane(o: { sessionName: string; paneId: string; onOutput: (data: string) => void; onClose?: () => void }): Promise<PaneFollower | null> {
    return PaneFollower.open({ ...o, bin: this.bin, socketName: this.socketName, settled: this.clientSettled });
  }

  /** The server lists (or dropped) a control client: asked of the open command client, never one being opened. */
  private readonly clientSettled = clientSettledVia(() => this.ctl);

  /** Ends the control client (the server and its panes stay). */
  close(): void {
    this.ctl?.close();
    this.ctl = null;
  }

  /**
   * Runs commands in this order as one unit: one control-mode write, or (without a control client)
   * one tmux process with `;` between the commands. Resolves with their outputs concatenated.
   */
  async sequence(cmds: readonly (readonly string[])[], input?: string): Promise<string> {
    const c = input === undefined ? await this.control() : null;
    if (c) {
      try {
        return (await Promise.all(c.execAll(cmds))).join('');
      } catch (err) {
        const e = err as Error & { stderr?: string };
        throw new TmuxError(e.message, e.stderr ?? '');
      }
    }
    return this.spawnRun(
      cmds.flatMap((c, i) => (i === 0 ? [...c] : [';', ...c])),
      input,
    );
  }

  run(args: readonly string[], input?: string): Promise<string> {
    return this.sequence([args], input);
  }

  private spawnRun(args: readonly string[], input?: string): Promise<string> {
    return runTmuxProcess({ bin: this.bin, socketName: this.socketName, env: this.env }, args, input);
  }

  /**
   * A server started earlier (by an agent that did not withhold them) keeps its start environment as
   * its global environment, which every new pane's wrapper shell inherits: withheld names go.
   */
  private async scrubGlobalEnvironment(): Promise<void> {
    if (!this.withheld || this.userServer) return;
    const out = await this.run(['show-environment', '-g']).catch(() => '');
    const names = out
      .split('\n')
      .map((l) => l.replace(/^-/, '').split('=')[0] ?? '')
      .filter((n) => n && this.withheld?.(n));
    if (names.length > 0) await this.sequence(names.map((n) => ['set-environment', '-g', '-u', n]));
  }

  /**
   * Starts the server if needed. A keeper session plus `exit-empty off` keep it alive between CLI
   * sessions (killing the last session and creating a new one at once can race the server's exit);
   * `remain-on-exit on` keeps dead panes so their death can be observed.
   */
  async ensureServer(): Promise<void> {
    this.ownServerOnly('ensureServer');
    await mkdir(this.runDir, { recursive: true, mode: 0o700 });
    try {
      await this.run(['has-session', '-t', `=${KEEPER}`]);
      await this.scrubGlobalEnvironment();
    } catch {
      try {
        await this.run(['new-session', '-d', '-s', KEEPER, 'sleep', '2147483647']);
      } catch (err) {
        // Another caller may have created it in the meantime.
        await this.run(['has-session', '-t', `=${KEEPER}`]).catch(() => Promise.reject(err));
      }
    }
    this.ctlRetryAt = 0;
    await this.sequence([
      ['set-option', '-g', 'exit-empty', 'off'],
      ['set-option', '-g', 'remain-on-exit', 'on'],
    ]);
  }

  /**
   * Follows every pane's dead flag without polling from here: a control-mode subscription that the
   * tmux server evaluates once a second and reports only when it changes (so a pane that died, or
   * vanished with its session, is known within ~1 s). The listener gets null while this cannot be
   * followed (no control client); callers then poll.
   */
  watchPanes(listener: (panes: PaneStates) => void): () => void {
    this.paneListeners.add(listener);
    if (this.paneListeners.size === 1) {
      if (this.ctl && !this.ctl.closed) this.subscribePanes(this.ctl);
      else void this.control();
    }
    return () => {
      this.paneListeners.delete(listener);
      if (this.paneListeners.size === 0 && this.ctl && !this.ctl.closed) {
        void this.ctl.exec(['refresh-client', '-B', PANES_SUB]).catch(() => undefined);
        this.panes = null;
      }
    };
  }

  /** The last pane states the subscription reported; null when not followed. */
  get paneStates(): PaneStates {
    return this.panes;
  }

  private subscribePanes(c: ControlClient): void {
    void c.exec(['refresh-client', '-B', `${PANES_SUB}::${PANES_FORMAT}`]).catch(() => undefined);
  }

  private onNotification(line: string): void {
    const panes = parsePanesNotification(line);
    if (panes) this.setPanes(panes);
  }

  private setPanes(panes: PaneStates): void {
    this.panes = panes;
    for (const l of this.paneListeners) {
      try {
        l(panes);
      } catch {
        // a listener's failure must not stop the others
      }
    }
  }

  async newSession(opts: NewSessionOptions): Promise<NewSessionResult> {
    this.ownServerOnly('new-session');
    assertSessionName(opts.name);
    await this.ensureServer();
    const scriptPath = join(this.runDir, `${opts.name}.sh`);
    const exitFile = join(this.runDir, `${opts.name}.exit`);
    const script = buildWrapperScript({ cwd: opts.cwd, command: opts.command, env: opts.env, exitFile });
    // The script holds the CLI's environment: readable by this user only, and removed by the caller
    // (`removeScript`) once its shell has it open.
    await rm(scriptPath, { force: true });
    await writeFile(scriptPath, script, { mode: 0o600, flag: 'wx' });
    await rm(exitFile, { force: true });
    await writeFile(exitFile, '', { mode: 0o600, flag: 'wx' }).catch(() => undefined);
    let out: string;
    try {
      out = await this.run([
        'new-session',
        '-d',
        '-P',
        '-F',
        PANE_FORMAT,
        '-s',
        opts.name,
        '-x',
        String(opts.width ?? 200),
        '-y',
        String(opts.height ?? 50),
        '-c',
        opts.cwd,
        'sh',
        scriptPath,
      ]);
    } catch (err) {
      await rm(scriptPath, { force: true });
      throw err;
    }
    const pane = parsePaneLine(out.trim());
    if (!pane) throw new TmuxError(`unexpected new-session output: ${out}`, '');
    return { sessionName: opts.name, paneId: pane.paneId, panePid: pane.panePid, scriptPath, exitFile };
  }

  /**
   * Removes a pane's start script. Call it once the script's shell has started its command (the
   * shell keeps reading the file it has open); before that, the pane would find nothing to run.
   */
  async removeScript(scriptPath: string): Promise<void> {
    await rm(scriptPath, { force: true });
  }

  /** Removes every start script left in the run folder (by an older agent); only while nothing is being started. */
  async removeStaleScripts(): Promise<number> {
    if (this.userServer) return 0;
    const names = (await readdir(this.runDir).catch(() => [] as string[])).filter((n) => n.endsWith('.sh'));
    for (const n of names) await rm(join(this.runDir, n), { force: true });
    return names.length;
  }

  /**
   * Bracketed paste (embedded newlines stay newlines), then Enter as a separate key press. The
   * buffer is filled and pasted in one unit: one control-mode write (`set-buffer` with the text
   * quoted byte for byte) or, without a control client, one tmux process (`load-buffer -` from
   * stdin `;` `paste-buffer`). With `captureBefore` a `capture-pane` runs first in the same unit and
   * its output (the screen just before the paste) is returned.
   */
  async paste(target: string, text: string, opts: { submit?: boolean; gapMs?: number; captureBefore?: boolean } = {}): Promise<string> {
    const buffer = `bria-${randomUUID()}`;
    const capture = opts.captureBefore ? [['capture-pane', '-p', '-t', target]] : [];
    // tmux 3.3a segfaults (the whole server) on paste-buffer into a dead pane; a CLI may die just
    // before a delivery, so the paste runs only if the pane is alive at that very moment (if-shell -F
    // evaluates the format inside the server, no shell; nothing runs between it and the paste; a
    // dead pane gets its buffer deleted instead). The last command reports the pane's state.
    const guardedPaste = [
      'if-shell',
      '-F',
      '-t',
      target,
      '#{pane_dead}',
      commandLine(['delete-buffer', '-b', buffer]),
      commandLine(['paste-buffer', '-p', '-d', '-b', buffer, '-t', target]),
    ];
    const deadNow = ['display-message', '-p', '-t', target, '#{pane_dead}'];
    const c = await this.control();
    let out: string;
    try {
      out = c
        ? await this.sequence([...capture, ['set-buffer', '-b', buffer, '--', text], guardedPaste, deadNow])
        : await this.sequence([...capture, ['load-buffer', '-b', buffer, '-'], guardedPaste, deadNow], text);
    } catch (err) {
      // A buffer that was filled but not pasted (pane gone) must not linger in the server.
      await this.run(['delete-buffer', '-b', buffer]).catch(() => undefined);
      throw err;
    }
    const cut = out.lastIndexOf('\n', out.length - 2) + 1;
    const before = out.slice(0, cut);
    if (out.slice(cut) !== '0\n') throw new TmuxError(`tmux paste-buffer failed: pane ${target} is dead`, '');
    if (opts.submit === false) return before;
    // Codex turns an Enter that follows input too closely into a newline.
    await sleep(opts.gapMs ?? 120);
    await this.sendKeys(target, ['Enter']);
    return before;
  }

  async sendKeys(target: string, keys: readonly string[]): Promise<void> {
    await this.run(['send-keys', '-t', target, ...keys]);
  }

  async capture(target: string, opts: { scrollback?: number } = {}): Promise<string> {
    const args = ['capture-pane', '-p', '-t', target];
    if (opts.scrollback) args.push('-S', `-${opts.scrollback}`);
    return this.run(args);
  }

  /** null when the pane (or the whole server) no longer exists. */
  async paneInfo(target: string): Promise<PaneInfo | null> {
    try {
      const out = await this.run(['display-message', '-p', '-t', target, PANE_FORMAT]);
      return parsePaneLine(out.trim());
    } catch {
      return null;
    }
  }

  async listPanes(): Promise<PaneInfo[]> {
    try {
      return parsePaneList(await this.run(['list-panes', '-a', '-F', PANE_FORMAT]));
    } catch {
      return [];
    }
  }

  async serverPid(): Promise<number | null> {
    const out = await this.run(['display-message', '-p', '#{pid}']).catch(() => '');
    return /^\d+$/.test(out.trim()) ? Number(out.trim()) : null;
  }

  /**
   * tmux 3.3a sometimes misses the SIGCHLD of a pane process that ends (the pane still turns dead
   * through the pty), leaving a zombie until the next SIGCHLD. Sending one makes the server reap it;
   * to tmux it only means "check your children".
   */
  async nudgeReaper(): Promise<boolean> {
    if (this.userServer) return false;
    const pid = await this.serverPid();
    if (pid === null) return false;
    try {
      process.kill(pid, 'SIGCHLD');
      return true;
    } catch {
      return false;
    }
  }

  async killSession(name: string): Promise<void> {
    this.ownServerOnly('kill-session');
    await this.run(['kill-session', '-t', `=${name}`]);
  }

  /** Ends the private server and removes its socket file, which tmux leaves behind. */
  async killServer(): Promise<void> {
    this.ownServerOnly('kill-server');
    const socket = (await this.run(['display-message', '-p', '#{socket_path}']).catch(() => '')).trim();
    await this.run(['kill-server']).catch(() => undefined);
    this.close();
    if (socket.endsWith(`/${this.socketName}`)) await rm(socket, { force: true }).catch(() => undefined);
  }

  /**
   * The CLI's exit status as the pane's wrapper recorded it. The wrapper writes it just after the
   * CLI ends, so a caller that saw the CLI die may wait up to `waitMs` for the file to appear.
   */
  async readExitStatus(exitFile: string, waitMs = 0): Promise<number | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const text = await readFile(exitFile, 'utf8').catch(() => '');
      if (/^\d+\s*$/.test(text)) return Number(text.trim());
      if (Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
