import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertSessionName, PANE_FORMAT, parsePaneLine, parsePaneList, type PaneInfo } from './pane-format.ts';
import { buildWrapperScript } from './shell-script.ts';

export interface TmuxOptions {
  /** Name of the private server socket (`tmux -L <name>`). */
  socketName: string;
  /** Where wrapper scripts and exit files are written. */
  runDir: string;
  tmuxBin?: string;
}

export interface NewSessionOptions {
  name: string;
  cwd: string;
  command: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  width?: number;
  height?: number;
}

export interface NewSessionResult {
  sessionName: string;
  paneId: string;
  panePid: number;
  scriptPath: string;
  exitFile: string;
}

export class TmuxError extends Error {
  constructor(message: string, readonly stderr: string) {
    super(message);
  }
}

const KEEPER = 'bria-keeper';

/** Adapter over one private tmux server; every call is an argument array, never a shell string. */
export class Tmux {
  readonly socketName: string;
  readonly runDir: string;
  private readonly bin: string;

  constructor(opts: TmuxOptions) {
    this.socketName = opts.socketName;
    this.runDir = opts.runDir;
    this.bin = opts.tmuxBin ?? 'tmux';
  }

  run(args: readonly string[], input?: string): Promise<string> {
    const full = ['-L', this.socketName, ...args];
    if (input === undefined) {
      return new Promise((resolve, reject) => {
        execFile(this.bin, full, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
          if (err) reject(new TmuxError(`tmux ${args[0]} failed: ${stderr.trim() || err.message}`, stderr));
          else resolve(stdout);
        });
      });
    }
    return new Promise((resolve, reject) => {
      const child = spawn(this.bin, full, { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        if (code === 0) resolve(stdout);
        else reject(new TmuxError(`tmux ${args[0]} failed: ${stderr.trim()}`, stderr));
      });
      child.stdin.end(input);
    });
  }

  /**
   * Starts the server if needed. A keeper session plus `exit-empty off` keep it alive between CLI
   * sessions (killing the last session and creating a new one at once can race the server's exit);
   * `remain-on-exit on` keeps dead panes so their death can be observed.
   */
  async ensureServer(): Promise<void> {
    await mkdir(this.runDir, { recursive: true });
    try {
      await this.run(['has-session', '-t', `=${KEEPER}`]);
    } catch {
      try {
        await this.run(['new-session', '-d', '-s', KEEPER, 'sleep', '2147483647']);
      } catch (err) {
        // Another caller may have created it in the meantime.
        await this.run(['has-session', '-t', `=${KEEPER}`]).catch(() => Promise.reject(err));
      }
    }
    await this.run(['set-option', '-g', 'exit-empty', 'off']);
    await this.run(['set-option', '-g', 'remain-on-exit', 'on']);
  }

  async newSession(opts: NewSessionOptions): Promise<NewSessionResult> {
    assertSessionName(opts.name);
    await this.ensureServer();
    const scriptPath = join(this.runDir, `${opts.name}.sh`);
    const exitFile = join(this.runDir, `${opts.name}.exit`);
    const script = buildWrapperScript({ cwd: opts.cwd, command: opts.command, env: opts.env, exitFile });
    await writeFile(scriptPath, script, { mode: 0o700 });
    await writeFile(exitFile, '').catch(() => undefined);
    const out = await this.run([
      'new-session', '-d', '-P', '-F', PANE_FORMAT,
      '-s', opts.name,
      '-x', String(opts.width ?? 200), '-y', String(opts.height ?? 50),
      '-c', opts.cwd,
      'sh', scriptPath,
    ]);
    const pane = parsePaneLine(out.trim());
    if (!pane) throw new TmuxError(`unexpected new-session output: ${out}`, '');
    return { sessionName: opts.name, paneId: pane.paneId, panePid: pane.panePid, scriptPath, exitFile };
  }

  /** Bracketed paste (embedded newlines stay newlines), then Enter as a separate key press. */
  async paste(target: string, text: string, opts: { submit?: boolean; gapMs?: number } = {}): Promise<void> {
    const buffer = `bria-${randomUUID()}`;
    await this.run(['load-buffer', '-b', buffer, '-'], text);
    await this.run(['paste-buffer', '-p', '-d', '-b', buffer, '-t', target]);
    if (opts.submit === false) return;
    // Codex turns an Enter that follows input too closely into a newline.
    await sleep(opts.gapMs ?? 120);
    await this.sendKeys(target, ['Enter']);
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
    await this.run(['kill-session', '-t', `=${name}`]);
  }

  /** Ends the private server and removes its socket file, which tmux leaves behind. */
  async killServer(): Promise<void> {
    const socket = (await this.run(['display-message', '-p', '#{socket_path}']).catch(() => '')).trim();
    await this.run(['kill-server']).catch(() => undefined);
    if (socket.endsWith(`/${this.socketName}`)) await rm(socket, { force: true }).catch(() => undefined);
  }

  /** The status the wrapper wrote after the CLI ended; null while it runs or if it never got there. */
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
