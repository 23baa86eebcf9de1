import type { Executor } from './messages.ts';

// Which texts a CLI's input box can take so that its model receives exactly those bytes. The agent
// types every other text exactly (executors/type-prompt.ts); these few the CLI itself rewrites or
// treats as its own command whatever is typed, so they are refused before they are stored.

/** Why a text cannot reach this CLI's model byte for byte; the reason names a catalog key. */
export type CliTextRefusal = 'msg.refusedCliCommand' | 'msg.refusedCliWhitespace' | 'msg.refusedCliWord';

/**
 * Claude Code runs any submitted text whose first word after `/` is a command name (letters, digits,
 * `:`, `_`, `-`) as a slash command: a known one runs, an unknown one only prints "Unknown command"
 * (unless `/<word>` happens to exist on disk). A `/` followed by a path-like word (`/srv/app/x.md`)
 * is a prompt. A lone `/` (or `/` then a space) prints a usage line.
 */
const CLAUDE_SLASH = /^\/([^\s]*)/;
const COMMAND_NAME = /^[a-zA-Z0-9:_-]*$/;
/** Claude Code exits when the whole trimmed text is one of these (2.1.197). */
const CLAUDE_EXIT_WORDS = new Set(['exit', 'quit', ':q', ':q!', ':wq', ':wq!']);

export function cliTextRefusal(executor: Executor, text: string): CliTextRefusal | null {
  // Codex trims every submitted text; Claude trims trailing whitespace, and both ends of a text typed
  // while a turn runs (it queues it trimmed). Outer whitespace would not arrive, so it is refused.
  if (/^\s|\s$/.test(text)) return 'msg.refusedCliWhitespace';
  if (executor === 'codex') return null;
  const slash = CLAUDE_SLASH.exec(text);
  if (slash && COMMAND_NAME.test(slash[1]!)) return 'msg.refusedCliCommand';
  if (CLAUDE_EXIT_WORDS.has(text.trim())) return 'msg.refusedCliWord';
  // The whole input `?` toggles the shortcuts help; `!` alone switches to shell mode.
  if (text === '?' || text === '!') return 'msg.refusedCliWord';
  return null;
}
