import type { Executor } from './messages.ts';

// What the user fixes when a session is created: the CLI's permission mode and (optionally) its model.
// One closed list per executor, shared by the hub (validation, storage), the front ends (choices) and
// the agent (command line). Stored values are the CLIs' own names where the CLI has one.

/** Claude Code's `--permission-mode` values Bria offers (2.1.197 also has `auto` and `dontAsk`: not offered). */
export const CLAUDE_PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const;
/**
 * Codex approval policy + sandbox pairs, named by the sandbox: `workspace-write` and `read-only` ask
 * on request (`-a on-request`), `full-access` never asks and has no sandbox (`-a never -s danger-full-access`).
 */
export const CODEX_PERMISSION_MODES = ['workspace-write', 'read-only', 'full-access'] as const;

export type ClaudePermissionMode = (typeof CLAUDE_PERMISSION_MODES)[number];
export type CodexPermissionMode = (typeof CODEX_PERMISSION_MODES)[number];
export type SessionPermissionMode = ClaudePermissionMode | CodexPermissionMode;
export type PermissionModeFor<E extends Executor> = E extends 'claude' ? ClaudePermissionMode : CodexPermissionMode;

export const PERMISSION_MODES = { claude: CLAUDE_PERMISSION_MODES, codex: CODEX_PERMISSION_MODES } as const satisfies Record<Executor, readonly string[]>;

/** What a node offers until its owner picks another default. */
export const DEFAULT_PERMISSION_MODE = { claude: 'default', codex: 'workspace-write' } as const satisfies Record<Executor, string>;

/**
 * Values stored before the per-executor lists: `default` (no flag: Claude's own default; for Codex its
 * built-in on-request + workspace-write), `accept-edits` (Claude acceptEdits; Codex on-request +
 * workspace-write), `full-access` (Claude skip-permissions; Codex no approvals, no sandbox).
 */
const LEGACY: Record<Executor, Record<string, SessionPermissionMode>> = {
  claude: { 'accept-edits': 'acceptEdits', 'full-access': 'bypassPermissions' },
  codex: { default: 'workspace-write', 'accept-edits': 'workspace-write' },
};

export function isPermissionMode<E extends Executor>(executor: E, value: string): value is PermissionModeFor<E> {
  return (PERMISSION_MODES[executor] as readonly string[]).includes(value);
}

/** A stored value read as this executor's mode: current values as they are, old ones mapped, anything else the default. */
export function permissionModeOf<E extends Executor>(executor: E, stored: string | null | undefined): PermissionModeFor<E> {
  const value = stored ?? '';
  if (isPermissionMode(executor, value)) return value;
  return (LEGACY[executor][value] ?? DEFAULT_PERMISSION_MODE[executor]) as PermissionModeFor<E>;
}

/**
 * Modes the machine cannot start, with the reason: Claude refuses to skip permissions for root
 * (`--dangerously-skip-permissions cannot be used with root/sudo privileges`, 2.1.197) unless its
 * environment says it runs in a sandbox (`IS_SANDBOX=1`). Bria does not set that on the user's behalf.
 */
export type ModeUnavailableReason = 'root';

/**
 * A short list of what each pinned CLI offers: Claude's aliases from `claude --help` (2.1.197), Codex's
 * first listed models of its bundled catalogue (0.171.0). Any other valid name may be typed.
 */
export const MODEL_SUGGESTIONS = {
  claude: ['opus', 'sonnet', 'fable'],
  codex: ['gpt-6.2-sol', 'gpt-6.2-astra', 'gpt-6.1-terra'],
} as const satisfies Record<Executor, readonly string[]>;

export const MODEL_MAX_LENGTH = 100;
/** Letters, digits and `.` `_` `-` `:` `/` `[` `]` `@` (`claude-opus-4-8[1m]`, `openai/gpt-x`): no whitespace, no shell characters, no leading `-`. */
const MODEL_NAME = /^[A-Za-z0-9._:/@[\]][A-Za-z0-9._:/@[\]-]*$/;

/** The model name as it goes to the CLI, or a refusal; empty = the CLI's own default (null). */
export function parseModel(raw: string | null | undefined): { ok: true; model: string | null } | { ok: false; reason: 'too_long' | 'invalid' } {
  const model = (raw ?? '').trim();
  if (model === '') return { ok: true, model: null };
  if (model.length > MODEL_MAX_LENGTH) return { ok: false, reason: 'too_long' };
  if (!MODEL_NAME.test(model)) return { ok: false, reason: 'invalid' };
  return { ok: true, model };
}
