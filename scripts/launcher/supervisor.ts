import { spawn, type ChildProcess } from 'node:child_process';
import { formatLogLine } from './pretty-log.ts';

/**
 * Runs Bria's own processes (hub, web, bot, local agent) as children: prefixes their output,
 * restarts a crashed one after a growing pause, and stops them all on shutdown.
 */
export interface ChildSpec {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Restart when it exits unexpectedly (default true). */
  restart?: boolean;
}

const RESTART_DELAYS_MS = [500, 1_000, 2_000, 5_000, 10_000, 30_000];

export class Supervisor {
  private children = new Map<string, { spec: ChildSpec; proc?: ChildProcess; restarts: number; startedAt: number }>();
  private stopping = false;

  constructor(private readonly out: (line: string) => void) {}

  start(spec: ChildSpec): void {
    const entry = { spec, restarts: 0, startedAt: Date.now(), proc: undefined as ChildProcess | undefined };
    this.children.set(spec.name, entry);
    this.launch(spec.name);
  }

  pid(name: string): number | undefined {
    return this.children.get(name)?.proc?.pid;
  }

  private launch(name: string): void {
    const entry = this.children.get(name);
    if (!entry || this.stopping) return;
    const { spec } = entry;
    // A process group of its own: a terminal's Ctrl-C reaches the launcher only, which then stops
    // children in order (the database last) instead of everything dying at once.
    const proc = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    entry.proc = proc;
    entry.startedAt = Date.now();
    const pipe = (stream: NodeJS.ReadableStream | null) => {
      let buf = '';
      stream?.on('data', (chunk: Buffer) => {
        buf += chunk.toString();
        let i = buf.indexOf('\n');
        while (i >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) this.out(formatLogLine(spec.name, line));
          i = buf.indexOf('\n');
        }
      });
    };
    pipe(proc.stdout);
    pipe(proc.stderr);
    proc.on('exit', (code, signal) => {
      if (entry.proc !== proc) return;
      entry.proc = undefined;
      if (this.stopping) return;
      if (spec.restart === false) {
        this.out(formatLogLine('bria', `${name} exited (${signal ?? code}).`));
        return;
      }
      if (Date.now() - entry.startedAt > 60_000) entry.restarts = 0;
      const delay = RESTART_DELAYS_MS[Math.min(entry.restarts, RESTART_DELAYS_MS.length - 1)] ?? 30_000;
      entry.restarts += 1;
      this.out(formatLogLine('bria', `${name} exited (${signal ?? `code ${code}`}); restarting in ${delay / 1000} s.`));
      setTimeout(() => this.launch(name), delay).unref();
    });
  }

  /** Stops children in the given order (others after), each with SIGTERM then SIGKILL after a grace period. */
  async stopAll(order: string[] = [], graceMs = 8_000): Promise<void> {
    this.stopping = true;
    const names = [...order.filter((n) => this.children.has(n)), ...[...this.children.keys()].filter((n) => !order.includes(n))];
    for (const name of names) {
      const proc = this.children.get(name)?.proc;
      if (!proc || proc.exitCode !== null || proc.pid === undefined) continue;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      try {
        process.kill(-proc.pid, 'SIGTERM');
      } catch {
        continue;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-(proc.pid as number), 'SIGKILL');
        } catch {}
      }, graceMs);
      await exited;
      clearTimeout(timer);
    }
  }
}
