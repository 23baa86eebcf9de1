import { execFile, spawn } from 'node:child_process';

export class TmuxError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/**
 * How a client names its server: an absolute socket path (`-S`, a server of the user's own, found
 * in a CLI's `TMUX` environment) or a socket name under tmux's folder (`-L`, Bria's private server).
 * A name never starts with `/` (pane-format.ts checks names), so one string says which it is.
 */
export function tmuxAddress(socket: string): string[] {
  return socket.startsWith('/') ? ['-S', socket] : ['-L', socket];
}

/**
 * Runs one tmux client process on the private server (`tmux -L <socket> …args`, or `-S <path>`), with `input` on its
 * stdin when given; resolves with its stdout. Used when no control-mode client is open.
 */
export function runTmuxProcess(
  o: { bin: string; socketName: string; env: NodeJS.ProcessEnv | undefined },
  args: readonly string[],
  input?: string,
): Promise<string> {
  const full = [...tmuxAddress(o.socketName), ...args];
  if (input === undefined) {
    return new Promise((resolve, reject) => {
      execFile(o.bin, full, { maxBuffer: 16 * 1024 * 1024, env: o.env }, (err, stdout, stderr) => {
        if (err) reject(new TmuxError(`tmux ${args[0]} failed: ${stderr.trim() || err.message}`, stderr));
        else resolve(stdout);
      });
    });
  }
  return new Promise((resolve, reject) => {
    const child = spawn(o.bin, full, { stdio: ['pipe', 'pipe', 'pipe'], env: o.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    // tmux may end before reading stdin (an earlier command of the sequence failed): the exit code
    // tells the outcome, the broken pipe must not become an uncaught error.
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new TmuxError(`tmux ${args[0]} failed: ${stderr.trim()}`, stderr));
    });
    child.stdin.end(input);
  });
}
