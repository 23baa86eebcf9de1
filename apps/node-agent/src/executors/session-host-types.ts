// The session host's options, timeouts and internal state shapes (session-host.ts).
import { DEFAULT_PERMISSION_MODE } from '@bria/core/protocol';
import type { Tmux } from '../tmux/tmux.ts';
import type { Env, ExecutorDriver, HookLaunch, PermissionMode } from './types.ts';

export interface SessionHostOptions {
  driver: ExecutorDriver;
  tmux: Tmux;
  /** Path of the CLI binary; resolving it is the caller's job. */
  bin: string;
  /** The CLI's complete environment (HOME, CODEX_HOME, CLAUDE_CONFIG_DIR, proxies, base URLs…). */
  env: Env;
  timeouts?: Partial<Timeouts>;
}

export interface Timeouts {
  readyMs: number;
  receiptMs: number;
  interruptMs: number;
  exitMs: number;
  monitorMs: number;
}
export const JOURNAL_SAFETY_POLL_MS = 10_000;
export const DEFAULTS: Timeouts = { readyMs: 30_000, receiptMs: 30_000, interruptMs: 8_000, exitMs: 8_000, monitorMs: 1_000 };

export interface Receipt {
  messageId: string;
  sent: string;
  /** Image files pasted before the text (their placeholders precede it in the journal). */
  images: number;
  baseline: number;
  resolve: (ref: string) => void;
  died: () => void;
}
// 'unconfirmed': a CLI runs in the pane but was never proven ready (dialog, wrong id): close() may
// kill it, but no key is sent to it, since a key could answer a question on the user's behalf.
export type State = 'new' | 'starting' | 'ready' | 'unconfirmed' | 'closing' | 'closed' | 'exited' | 'detached';

export type DeliverResult = { accepted: true; nativeRef: string } | { accepted: false; reason: string };

/** The CLI's command line for a new session (`nativeId` chosen by Bria, or null where the CLI picks it) or a resume of exactly `nativeId`. */
export function launchArgs(
  driver: ExecutorDriver,
  mode: 'start' | 'resume',
  o: { nativeId: string | null; cwd: string; permissionMode?: PermissionMode; model?: string } & HookLaunch,
): string[] {
  const p = {
    nativeId: o.nativeId,
    cwd: o.cwd,
    permissionMode: o.permissionMode ?? DEFAULT_PERMISSION_MODE[driver.executor],
    model: o.model,
    settingsPath: o.settingsPath,
    codexHooks: o.codexHooks,
  };
  if (mode === 'start') return driver.startArgs(p);
  if (p.nativeId === null) throw new Error('a resume names its native id');
  return driver.resumeArgs({ ...p, nativeId: p.nativeId });
}

/** The other executor's hook form is refused, never ignored (Claude: a settings file; Codex: `-c` overrides). */
export function hookRefusal(driver: ExecutorDriver, o: HookLaunch): string | null {
  if (o.settingsPath && !driver.hookSettings) return `${driver.executor}: takes no Claude hook settings file`;
  if (o.codexHooks?.length && !driver.codexHooks) return `${driver.executor}: takes no Codex hook overrides`;
  return null;
}
