import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What serve.ts prepared for the tests. */
export interface E2EState {
  baseURL: string;
  /** POST `/login-link` (optionally `?expired=1`) → `{ url }`, a fresh one-time link; POST `/hub/stop`, `/hub/start`; POST `/web/stop`, `/web/start` (the dashboard's process, same port); GET `/mock/<claude|codex>/requests`, what the mock model was asked (no bodies); GET `/transcribe/requests` and POST `/transcribe/behave`, the fake transcription service's log and next answer. */
  controlURL: string;
  hubPort: number;
  buildMs: number;
  /** The throw-away database, so a test can re-read Bria's state and call the services the bot calls. */
  databaseUrl: string;
  /** A folder both CLIs trust (no trust dialog); tests create session folders inside it. */
  workDir: string;
  /** The CLIs' environment the agent uses (throw-away HOME, mock model URLs): a CLI started "by hand" in a test uses it too. */
  cliEnv: Record<string, string>;
  /** The tmux server (`tmux -L <name>`) the agent runs the CLIs in; one per run. */
  tmuxSocket: string;
}

export const STATE_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '.tmp', 'state.json');

export function readState(): E2EState {
  return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as E2EState;
}

/** Runs `tmux -L <this run's socket> …` and returns its output. */
export function e2eTmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', readState().tmuxSocket, ...args], { encoding: 'utf8' });
}

/** The tmux session and pane of a session's CLI (the agent names it `bria-<id8>-g<generation>`), or null. */
export function cliPaneOf(sessionId: string): { sessionName: string; paneId: string } | null {
  const hit = e2eTmux('list-panes', '-a', '-F', '#{session_name} #{pane_id}')
    .split('\n')
    .find((l) => l.startsWith(`bria-${sessionId.slice(0, 8)}-g`));
  if (!hit) return null;
  const [sessionName, paneId] = hit.split(' ');
  return sessionName && paneId ? { sessionName, paneId } : null;
}
