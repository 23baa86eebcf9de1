import { createHash } from 'node:crypto';
import type { HookExecutor } from './hook-answers.ts';

/**
 * How each CLI is told to run Bria's hook (pure; the channel writes the Claude file). Facts of the
 * CLIs behind these shapes: docs/hooks-channel.md ("How it works", "Codex: per-run hooks") and
 * docs/cli-facts.md.
 */

/** Claude's timeout (seconds) for the PreToolUse gate; the program gives up after 10 s itself. */
export const TOOL_GATE_TIMEOUT_S = 30;
const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;
// The synthetic source path Codex gives hooks from `-c` overrides in its trust keys.
const CODEX_SESSION_FLAGS_SOURCE = '/<session-flags>/config.toml';

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

export interface HookCommandInput {
  /** The node binary that runs the hook (the agent's own, by absolute path). */
  node: string;
  program: string;
  socketPath: string;
  sessionId: string;
  boundMs: number;
  executor: HookExecutor;
}

/** The hook's shell command and the CLI's `timeout` (seconds) for it. */
export function hookCommand(o: HookCommandInput): { command: string; timeout: number } {
  if (!SAFE_ID.test(o.sessionId)) throw new Error(`unsafe session id for hook settings: ${JSON.stringify(o.sessionId)}`);
  const command = [o.node, o.program, o.socketPath, o.sessionId, String(o.boundMs), o.executor].map(shellQuote).join(' ');
  // The CLI kills a hook at its `timeout` (seconds); the hook gives up at the bound itself first.
  return { command, timeout: Math.ceil(o.boundMs / 1000) + 30 };
}

/**
 * A session's Claude settings (passed with `--settings`, which Claude merges with the user's own):
 * the PermissionRequest hook, and the same program as the PreToolUse typing gate (it never decides
 * anything there).
 */
export function claudeHookSettings(hook: { command: string; timeout: number }): Record<string, unknown> {
  return {
    hooks: {
      PermissionRequest: [{ matcher: '*', hooks: [{ type: 'command', command: hook.command, timeout: hook.timeout }] }],
      PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: hook.command, timeout: TOOL_GATE_TIMEOUT_S }] }],
    },
  };
}

/** Canonical JSON (object keys sorted), the form Codex hashes a hook definition in. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Codex's trust hash of one command hook without matcher (`sha256:` over the canonical JSON of the
 * event's snake_case name and the handler with its defaults), as Codex 0.171 writes it into
 * `hooks.state` when the user trusts the hook; checked against the real binary in
 * permission-hooks-codex.test.ts (a wrong hash: the hook does not run).
 */
export function codexHookTrustHash(eventName: string, command: string, timeoutSec: number): string {
  const identity = { event_name: eventName, hooks: [{ async: false, command, timeout: timeoutSec, type: 'command' }] };
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

/**
 * The `-c` overrides that give one Codex run Bria's PermissionRequest hook, trusted, without touching
 * the user's `config.toml` or `hooks.json` (whose hooks keep running beside it): the hook in the `-c`
 * layer, and its trust entry in `hooks.state` keyed the way Codex keys hooks of that layer.
 */
export function codexHookArgs(hook: { command: string; timeout: number }): string[] {
  const key = `${CODEX_SESSION_FLAGS_SOURCE}:permission_request:0:0`;
  const hash = codexHookTrustHash('permission_request', hook.command, hook.timeout);
  return [
    '-c',
    `hooks.PermissionRequest=[{hooks=[{type="command",command=${JSON.stringify(hook.command)},timeout=${hook.timeout}}]}]`,
    '-c',
    `hooks.state={${JSON.stringify(key)}={trusted_hash=${JSON.stringify(hash)}}}`,
  ];
}
