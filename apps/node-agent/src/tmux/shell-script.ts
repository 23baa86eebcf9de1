// Pure helpers that build the wrapper script a tmux pane runs. The script is the only shell code
// Bria writes; every value in it goes through `shellQuote`, never through string concatenation.

/** Single-quote a value for POSIX sh; a single quote inside becomes '\'' . */
export function shellQuote(value: string): string {
  if (value.includes('\0')) throw new Error('shell values cannot contain NUL bytes');
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface WrapperScriptOptions {
  cwd: string;
  command: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  exitFile: string;
}

/**
 * The pane runs `sh <script>`: cd into the folder, run the CLI under `env -i` with exactly the
 * caller's environment (a long-running tmux server would otherwise hand every pane the server's own
 * environment, and TMUX would point the CLI at our private socket), then record `$?`, because tmux's
 * own `pane_dead_status` is not reliable for this.
 */
export function buildWrapperScript(opts: WrapperScriptOptions): string {
  if (opts.command.length === 0) throw new Error('command must not be empty');
  const assignments: string[] = [];
  for (const [name, value] of Object.entries(opts.env)) {
    if (value === undefined || name === 'TERM' || name === 'TMUX' || name === 'TMUX_PANE') continue;
    if (!ENV_NAME.test(name)) throw new Error(`invalid environment variable name: ${JSON.stringify(name)}`);
    assignments.push(shellQuote(`${name}=${value}`));
  }
  // TERM describes the terminal tmux emulates for this pane, so it comes from the pane itself.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a JS template
  assignments.push('"TERM=${TERM:-tmux-256color}"');
  const exitFile = shellQuote(opts.exitFile);
  return [
    '#!/bin/sh',
    `cd ${shellQuote(opts.cwd)} || { echo 97 > ${exitFile}; exit 97; }`,
    `env -i ${assignments.join(' ')} ${opts.command.map(shellQuote).join(' ')}`,
    `echo $? > ${exitFile}`,
    '',
  ].join('\n');
}
