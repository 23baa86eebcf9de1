// A CLI started by hand, as a person at the computer would: in a tmux server of their own (not
// Bria's), its prompt typed with keys. For the desk ↔ phone tests (docs/handoff.md).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { claudeBin, codexBin } from './cli-homes.ts';
import { waitUntil } from './wait.ts';

export type DeskExecutor = 'claude' | 'codex';

export function deskArgv(executor: DeskExecutor, resumeId?: string): string[] {
  if (executor === 'claude') return [claudeBin, ...(resumeId ? ['--resume', resumeId] : [])];
  // Codex in-process (`--no-daemon`): its daemon mode is not verified (docs/handoff.md).
  return [codexBin, ...(resumeId ? ['resume', resumeId] : []), '--no-daemon'];
}

export interface DeskTerminal {
  socket: string;
  /** Types `text` and presses Enter once it is on the screen. */
  type(text: string): Promise<void>;
  /** Ends the user's tmux server (SIGHUP to the CLI, as closing the terminal would). */
  end(): void;
}

/** `socket`: the user's tmux server name (default a fresh one), so a caller can end it even when the start fails. */
export async function startDesk(o: {
  executor: DeskExecutor;
  folder: string;
  env: Record<string, string>;
  resumeId?: string;
  socket?: string;
}): Promise<DeskTerminal> {
  const socket = o.socket ?? `desk-${randomUUID().slice(0, 8)}`;
  const env = { ...o.env, TMUX: '' };
  const tmux = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  tmux('new-session', '-d', '-s', 'desk', '-x', '200', '-y', '50', '-c', o.folder, ...deskArgv(o.executor, o.resumeId));
  await waitUntil('the desk CLI at its prompt', async () => /❯|›/.test(tmux('capture-pane', '-p', '-t', 'desk')), 60_000);
  return {
    socket,
    async type(text: string) {
      tmux('send-keys', '-t', 'desk', '-l', text);
      await waitUntil('the text in the desk pane', async () => tmux('capture-pane', '-p', '-t', 'desk').includes(text.slice(0, 20)), 30_000);
      tmux('send-keys', '-t', 'desk', 'Enter');
    },
    end() {
      endDesk(socket);
    },
  };
}

/** Closes a desk terminal by its tmux server's name: the server ends, the CLI gets SIGHUP (as closing the window would). */
export function endDesk(socket: string): void {
  try {
    execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // never started, or already gone
  }
}
