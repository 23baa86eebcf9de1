// One long-lived tmux control-mode client (`tmux -C`) per private server: commands are written to its
// stdin as lines and answered in `%begin … %end` / `%error` blocks, so a call costs no process spawn.
// Measured on the 2-core VM: a spawned `tmux` client costs ~6–10 ms of CPU and waits for a CPU on a
// busy machine; a control-mode round trip is well under a millisecond.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { tmuxAddress } from './tmux-process.ts';

export class TmuxControlError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/**
 * Quotes one argument for tmux's command parser (control mode parses each line like a config file
 * line, unlike argv, which tmux takes as is): double quotes, with `\`, `"` and `$` escaped and every
 * control character written as an escape, so the argument reaches the command byte for byte.
 * `#{…}` and `~` are not expanded inside double quotes. NUL cannot be passed to tmux at all.
 */
export function quoteTmuxArg(arg: string): string {
  let out = '"';
  for (const ch of arg) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\' || ch === '"' || ch === '$') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code === 0) throw new TmuxControlError('tmux arguments cannot contain NUL bytes', '');
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

export function commandLine(args: readonly string[]): string {
  return args.map(quoteTmuxArg).join(' ');
}

interface Pending {
  cmd: string;
  /** Reply blocks still expected: `if-shell -F` answers with its own block, then its branch's. */
  blocks: number;
  out: string;
  resolve: (out: string) => void;
  reject: (err: Error) => void;
}

/**
 * Blocks one command answers with. `if-shell -F` (format only, no shell) runs the command of the
 * chosen branch right after itself, and control mode gives that command its own block; every
 * branch Bria passes is one command. A failing if-shell (bad target) has no second block.
 */
function blocksFor(args: readonly string[]): number {
  return args[0] === 'if-shell' && args.includes('-F') ? 2 : 1;
}

const BLOCK = /^%(begin|end|error) (\d+) (\d+) (\d+)$/;

/**
 * tmux 3.3a's server can crash (SIGSEGV, every session of the server gone) when two control-mode
 * clients attach or detach at the same moment; one at a time it does not (docs/cli-facts.md, "tmux
 * control clients"). The agent opens a pane follower per running turn, so with several sessions
 * those moments meet. Every attach (until tmux answers it) and every detach (until the client
 * process has exited) of this process's control clients therefore runs alone, per server.
 */
const transitions = new Map<string, Promise<void>>();
/** A detaching client that has not exited by then is killed, and the next transition goes on. */
export const DETACH_BOUND_MS = 2_000;
/** An attach tmux has not answered by then fails (the client is closed), so it cannot hold the others. */
export const ATTACH_BOUND_MS = 15_000;

/**
 * Resolves once the server itself lists (`present`) or no longer lists the client process `pid`.
 * A client's exit is not the end of its detach: the server notices it later (much later on a busy
 * machine), and the next attach must wait for that too. Given by `Tmux`, which asks its own
 * long-lived command client (`list-clients`); bounded there.
 */
export type ClientSettled = (pid: number, present: boolean) => Promise<void>;

/** How long an attach or detach waits for the server to list (or drop) the client. */
const CLIENT_SETTLE_BOUND_MS = 2_000;

/**
 * A `ClientSettled` that asks `command()` (the server's long-lived command client; never one being
 * opened, which would wait behind the very attach asking) with `list-clients`, every 5 ms, up to
 * `CLIENT_SETTLE_BOUND_MS`; without an open command client it does not wait.
 */
export function clientSettledVia(command: () => ControlClient | null): ClientSettled {
  return async (pid, present) => {
    const end = Date.now() + CLIENT_SETTLE_BOUND_MS;
    while (Date.now() < end) {
      const ctl = command();
      if (!ctl || ctl.closed) return;
      const listed = (await ctl.exec(['list-clients', '-F', '#{client_pid}'])).split('\n').includes(String(pid));
      if (listed === present) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  };
}

/** Runs `step` once every earlier attach or detach on `socketName` has finished. */
function oneAtATime<T>(socketName: string, step: () => Promise<T>): Promise<T> {
  const before = transitions.get(socketName) ?? Promise.resolve();
  const run = before.then(step);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  transitions.set(socketName, tail);
  void tail.then(() => {
    if (transitions.get(socketName) === tail) transitions.delete(socketName);
  });
  return run;
}

/**
 * A control-mode client attached (read-only for output: `no-output`, `ignore-size`) to the server's
 * keeper session. Replies arrive in the order the commands were written; notifications never arrive
 * inside a reply block (tmux guarantees it), so a FIFO of pending calls is enough.
 */
export class ControlClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: Pending[] = [];
  private block: { id: string; ours: boolean; lines: string[] } | null = null;
  private attached = false;
  private rest = '';
  private stderr = '';
  private closedValue = false;
  private readonly notifyListeners = new Set<(line: string) => void>();
  private readonly closeListeners = new Set<() => void>();
  private settled: ClientSettled | undefined;

  private constructor(
    child: ChildProcessWithoutNullStreams,
    private readonly socketName: string,
  ) {
    this.child = child;
  }

  /**
   * Attaches to `session`; null when there is no server or no such session. `flags` are the client's
   * (`attach-session -f`): the command client takes no output; a pane follower (pane-follow.ts) does.
   */
  static open(bin: string, socketName: string, session: string, flags = 'no-output,ignore-size', settled?: ClientSettled): Promise<ControlClient | null> {
    return oneAtATime(socketName, async () => {
      const c = await ControlClient.attach(bin, socketName, session, flags);
      if (c) c.settled = settled;
      if (c && settled && c.pid) await settled(c.pid, true).catch(() => undefined);
      return c;
    });
  }

  private static attach(bin: string, socketName: string, session: string, flags: string): Promise<ControlClient | null> {
    // -u: tmux would otherwise replace non-ASCII output with `_` when the agent's locale is not UTF-8.
    const child = spawn(bin, ['-u', ...tmuxAddress(socketName), '-C', 'attach-session', '-f', flags, '-t', `=${session}`], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const c = new ControlClient(child, socketName);
    return new Promise((resolve) => {
      const bound = setTimeout(() => c.close(), ATTACH_BOUND_MS);
      // The attach itself answers with one block that is not ours (flags 0): its end means "attached".
      c.pending.push({
        cmd: 'attach-session',
        blocks: 1,
        out: '',
        resolve: () => {
          clearTimeout(bound);
          resolve(c);
        },
        reject: () => {
          clearTimeout(bound);
          c.close();
          resolve(null);
        },
      });
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (d: string) => c.onData(d));
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (d: string) => (c.stderr = (c.stderr + d).slice(-2000)));
      child.on('error', () => c.onClosed());
      child.on('close', () => c.onClosed());
      child.stdin.on('error', () => undefined);
    });
  }

  get closed(): boolean {
    return this.closedValue;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  onNotification(listener: (line: string) => void): () => void {
    this.notifyListeners.add(listener);
    return () => this.notifyListeners.delete(listener);
  }

  onClose(listener: () => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /**
   * Writes all commands in one write (they run in this order, with nothing of ours in between) and
   * resolves with each one's output, in order. A failing command rejects its own promise only.
   */
  execAll(cmds: readonly (readonly string[])[]): Promise<string>[] {
    if (this.closedValue) return cmds.map((c) => Promise.reject(new TmuxControlError(`tmux ${c[0]} failed: control client closed`, this.stderr)));
    let text = '';
    const out = cmds.map((args) => {
      text += `${commandLine(args)}\n`;
      return new Promise<string>((resolve, reject) => this.pending.push({ cmd: args[0] ?? '', blocks: blocksFor(args), out: '', resolve, reject }));
    });
    this.updateRef();
    this.child.stdin.write(text);
    return out;
  }

  exec(args: readonly string[]): Promise<string> {
    return this.execAll([args])[0]!;
  }

  /**
   * Ends the client (the server and its sessions stay). It counts as closed at once; the detach
   * itself waits its turn (`oneAtATime`).
   */
  close(): void {
    if (this.closedValue) return;
    this.onClosed();
  }

  /** Detaches the client process: alone on its server, until it has exited (or was killed at the bound). */
  private detach(): void {
    const child = this.child;
    const settled = this.settled;
    const exited = () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const bound = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, DETACH_BOUND_MS);
        child.once('exit', () => {
          clearTimeout(bound);
          resolve();
        });
        child.stdin.end();
        child.kill('SIGTERM');
      });
    void oneAtATime(this.socketName, async () => {
      await exited();
      if (settled && child.pid) await settled(child.pid, false).catch(() => undefined);
    });
  }

  // Idle, the client must not keep the agent's event loop alive; with a call in flight it must.
  private updateRef(): void {
    const busy = this.pending.length > 0;
    for (const s of [this.child.stdout, this.child.stderr, this.child.stdin] as unknown as { ref(): void; unref(): void }[]) {
      if (busy) s.ref?.();
      else s.unref?.();
    }
    if (busy) this.child.ref();
    else this.child.unref();
  }

  private onData(d: string): void {
    // Closed: what the client still prints before its detach is nobody's.
    if (this.closedValue) return;
    this.rest += d;
    let nl = this.rest.indexOf('\n');
    while (nl >= 0) {
      this.onLine(this.rest.slice(0, nl));
      this.rest = this.rest.slice(nl + 1);
      nl = this.rest.indexOf('\n');
    }
  }

  private onLine(line: string): void {
    if (this.block) {
      const m = BLOCK.exec(line);
      if (m && m[1] !== 'begin' && `${m[2]} ${m[3]} ${m[4]}` === this.block.id) {
        const { lines, ours } = this.block;
        this.block = null;
        if (!ours) return;
        const p = this.pending[0];
        if (!p) return;
        if (m[1] === 'end') {
          p.out += lines.map((l) => `${l}\n`).join('');
          p.blocks -= 1;
          if (p.blocks > 0) return;
          this.pending.shift();
          p.resolve(p.out);
        } else {
          this.pending.shift();
          p.reject(new TmuxControlError(`tmux ${p.cmd} failed: ${lines.join('\n').trim()}`, lines.join('\n')));
        }
        this.updateRef();
        return;
      }
      this.block.lines.push(line);
      return;
    }
    const m = BLOCK.exec(line);
    if (m && m[1] === 'begin') {
      // The first block answers the attach; after it only blocks flagged 1 (our commands) are ours.
      const ours = !this.attached || m[4] === '1';
      this.attached = true;
      this.block = { id: `${m[2]} ${m[3]} ${m[4]}`, ours, lines: [] };
      return;
    }
    if (line === '%exit' || line.startsWith('%exit ')) {
      this.onClosed();
      return;
    }
    for (const l of this.notifyListeners) {
      try {
        l(line);
      } catch {
        // a listener's failure must not stop the reader
      }
    }
  }

  private onClosed(): void {
    if (this.closedValue) return;
    this.closedValue = true;
    const err = new TmuxControlError(`tmux control client ended${this.stderr.trim() ? `: ${this.stderr.trim()}` : ''}`, this.stderr);
    for (const p of this.pending.splice(0)) p.reject(new TmuxControlError(`tmux ${p.cmd} failed: ${err.message}`, this.stderr));
    this.updateRef();
    this.detach();
    for (const l of this.closeListeners) {
      try {
        l();
      } catch {
        // ignore
      }
    }
  }
}
