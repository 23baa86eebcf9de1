// Test helper: a private tmux server for running the real CLI TUIs, torn down with every process.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { procStart } from '../../../core/src/db/embedded-postgres.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Script that runs `argv` with exactly `env` (plus tmux's TERM), so nothing leaks in from the test runner. */
export async function writeLaunchScript(path: string, env: Record<string, string>, argv: string[]): Promise<void> {
  const vars = Object.entries(env).map(([k, v]) => shellQuote(`${k}=${v}`));
  await writeFile(path, `#!/bin/sh\nexec /usr/bin/env -i TERM="$TERM" ${vars.join(' ')} ${argv.map(shellQuote).join(' ')}\n`, {
    mode: 0o755,
  });
}

function descendants(pid: number): number[] {
  const path = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(path)) return [];
  const kids = readFileSync(path, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return kids.flatMap((k) => [k, ...descendants(k)]);
}

export interface TmuxTestServer {
  socket: string;
  tmux(...args: string[]): Promise<string>;
  /** Starts `script` in a new detached session named `name`. */
  start(name: string, cwd: string, script: string): Promise<void>;
  capture(name: string): Promise<string>;
  /** Polls the pane until `test` passes; throws with the last screen on timeout. */
  waitForScreen(name: string, test: (screen: string) => boolean, timeoutMs: number): Promise<string>;
  /** Types text and submits it with a separate Enter (a chained Enter can become a newline). */
  submit(name: string, text: string): Promise<void>;
  /** Kills the server and waits until every process that ran in its panes is gone. */
  destroy(): Promise<void>;
}

export function createTmuxTestServer(path: string): TmuxTestServer {
  const socket = `bria-test-mocks-${randomBytes(4).toString('hex')}`;
  const tmux = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile('tmux', ['-L', socket, ...args], { env: { PATH: path, TERM: 'xterm-256color', LANG: 'C.UTF-8' } }, (err, out, stderr) =>
        err ? reject(new Error(`tmux ${args[0]}: ${stderr || err.message}`)) : resolve(out),
      );
    });
  // `=name:` is an exact session match; a bare name may resolve to a window of that name elsewhere.
  const target = (name: string) => `=${name}:`;
  const capture = (name: string) => tmux('capture-pane', '-p', '-t', target(name));
  return {
    socket,
    tmux,
    capture,
    async start(name, cwd, script) {
      await tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '45', '-c', cwd, script);
    },
    async waitForScreen(name, test, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let screen = '';
      while (Date.now() < deadline) {
        screen = await capture(name);
        if (test(screen)) return screen;
        await sleep(100);
      }
      throw new Error(`screen of ${name} did not match within ${timeoutMs} ms:\n${screen}`);
    },
    async submit(name, text) {
      await tmux('send-keys', '-t', target(name), '-l', text);
      // On a busy machine the TUI may not have drawn the typed text yet, and an Enter that arrives
      // first is lost: wait until the text's tail is on screen before pressing Enter.
      const tail = text.slice(-12);
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && !(await tmux('capture-pane', '-p', '-t', target(name))).includes(tail)) await sleep(50);
      await sleep(100);
      await tmux('send-keys', '-t', target(name), 'Enter');
    },
    async destroy() {
      let pids: number[] = [];
      // A pid counts as ours only with the start it had: one that ended may name another process by now.
      let starts = new Map<number, string | null>();
      let socketPath = '';
      try {
        socketPath = (await tmux('display-message', '-p', '#{socket_path}')).trim();
        const panes = await tmux('list-panes', '-a', '-F', '#{pane_pid}');
        pids = panes.trim().split('\n').filter(Boolean).map(Number);
        pids = [...pids, ...pids.flatMap(descendants)];
        starts = new Map(pids.map((p) => [p, procStart(p)]));
        await tmux('kill-server');
      } catch {
        // No server left: nothing to kill.
      }
      const ours = (p: number): boolean => starts.get(p) !== null && procStart(p) === starts.get(p);
      const deadline = Date.now() + 10_000;
      while (pids.some(ours) && Date.now() < deadline) await sleep(100);
      for (const p of pids) {
        try {
          if (ours(p)) process.kill(p, 'SIGKILL');
        } catch {
          // Exited between the check and the kill.
        }
      }
      // kill-server leaves the socket file behind.
      if (socketPath) await rm(socketPath, { force: true });
    },
  };
}
