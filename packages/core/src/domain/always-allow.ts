/**
 * "Always allow for this session": which session rule a permission request may offer, and exactly
 * what it allows (issue 30). Pure; the agent writes the rule into Claude's answer, the bot and the
 * dashboard name it on the button, both from this one function.
 *
 * Decisions (docs/hooks-channel.md, "Always allow"):
 * - Only Claude takes a rule from a hook (`updatedPermissions` `addRules`, destination `session`);
 *   Codex's hook output refuses the field, so Codex requests never offer one.
 * - Bash: the exact command as Claude's exact rule `Bash(<command>)` (ruleContent without `:*`):
 *   the same command again runs unasked, any other command still asks. No prefix rules: every
 *   program worth a prefix rule (`npm`, `git`, `make`) runs arbitrary code through its arguments.
 * - Refused: interpreters, shells and wrappers (they run whatever their arguments say), compound
 *   commands and anything a shell would expand (operators, substitutions, redirections, globs,
 *   quotes, variables), programs named by a path, environment assignments, long commands.
 * - Every other tool (Write, Edit, WebFetch…): not offered (a tool-wide rule allows every later call
 *   anywhere; a folder-scoped Edit rule was not verified with the pinned CLI).
 */

/** Programs that run other code given on their command line: never a standing rule. */
export const NO_ALWAYS_PROGRAMS: ReadonlySet<string> = new Set([
  'bash',
  'sh',
  'zsh',
  'fish',
  'dash',
  'ksh',
  'csh',
  'tcsh',
  'busybox',
  'node',
  'nodejs',
  'deno',
  'bun',
  'bunx',
  'npx',
  'pnpx',
  'ruby',
  'perl',
  'php',
  'lua',
  'tclsh',
  'osascript',
  'powershell',
  'pwsh',
  'awk',
  'gawk',
  'find',
  'sudo',
  'doas',
  'su',
  'env',
  'xargs',
  'eval',
  'exec',
  'source',
  '.',
  'command',
  'builtin',
  'ssh',
  'nohup',
  'timeout',
  'nice',
  'ionice',
  'time',
  'watch',
  'strace',
  'gdb',
  'setsid',
  'chroot',
  'unshare',
  'script',
  'tmux',
  'screen',
]);

/** python, python3, python3.12, pypy3…: any version of an interpreter family. */
const INTERPRETER_FAMILY = /^(python|pypy|ruby|perl|php|node|lua)[0-9.]*$/;
/** What a command may contain to be allowed as it stands: no shell syntax at all. */
const PLAIN_COMMAND = /^[A-Za-z0-9_./:=@%+,-]+( [A-Za-z0-9_./:=@%+,-]+)*$/;
const PROGRAM = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;
/** Characters that make a command more than one plain program call. */
const COMPOUND = /&&|\|\||[;|&\n]|\$\(|`|[<>]/;
export const MAX_ALWAYS_COMMAND = 200;

export type AlwaysAllowRefusal = 'not_claude' | 'question' | 'tool_not_offered' | 'no_command' | 'compound' | 'interpreter' | 'shell_syntax' | 'too_long';

/** Claude's session rule (`addRules` entry) and what the button says. */
export interface AlwaysAllowOffer {
  rule: { toolName: 'Bash'; ruleContent: string };
  label: { kind: 'command'; command: string };
}

export type AlwaysAllowDecision = { ok: true; offer: AlwaysAllowOffer } | { ok: false; reason: AlwaysAllowRefusal };

export interface AlwaysAllowRequest {
  executor: 'claude' | 'codex';
  kind: 'tool' | 'question' | 'dialog';
  toolName: string | null;
  toolInput: unknown;
}

export function alwaysAllowOffer(r: AlwaysAllowRequest): AlwaysAllowDecision {
  if (r.executor !== 'claude') return { ok: false, reason: 'not_claude' };
  if (r.kind !== 'tool') return { ok: false, reason: 'question' };
  if (r.toolName !== 'Bash') return { ok: false, reason: 'tool_not_offered' };
  const command = (r.toolInput as { command?: unknown } | null)?.command;
  if (typeof command !== 'string' || command.trim() === '') return { ok: false, reason: 'no_command' };
  return bashOffer(command);
}

function bashOffer(command: string): AlwaysAllowDecision {
  if (COMPOUND.test(command)) return { ok: false, reason: 'compound' };
  if (command.length > MAX_ALWAYS_COMMAND) return { ok: false, reason: 'too_long' };
  const program = command.trim().split(/\s+/)[0] ?? '';
  if (NO_ALWAYS_PROGRAMS.has(program) || INTERPRETER_FAMILY.test(program)) return { ok: false, reason: 'interpreter' };
  // A path (./script, /usr/bin/x) runs whatever the file holds then; VAR=x sets the environment.
  if (!PLAIN_COMMAND.test(command) || !PROGRAM.test(program)) return { ok: false, reason: 'shell_syntax' };
  return { ok: true, offer: { rule: { toolName: 'Bash', ruleContent: command }, label: { kind: 'command', command } } };
}

/**
 * The offer of a stored prompt, for the buttons and the hub's answer check: only where the agent
 * offered one (`canAlwaysAllow`, set by Claude agents only) and the rule still names one.
 */
export function promptAlwaysAllow(p: { canAlwaysAllow: boolean; kind: string; toolName: string | null; toolInput: unknown }): AlwaysAllowOffer | null {
  if (!p.canAlwaysAllow || (p.kind !== 'tool' && p.kind !== 'question' && p.kind !== 'dialog')) return null;
  const d = alwaysAllowOffer({ executor: 'claude', kind: p.kind, toolName: p.toolName, toolInput: p.toolInput });
  return d.ok ? d.offer : null;
}
