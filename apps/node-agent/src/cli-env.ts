// Which of the agent's environment variables reach the CLIs. The CLIs get the user's environment
// (HOME, PATH, proxies, API keys and base URLs, CLAUDE_CONFIG_DIR, CODEX_HOME …) and none of Bria's
// own: a tool call inside a CLI (`env`, a prompt-injected script) must not find the database
// password, the agent token or the bot token there.

/**
 * Set by the launcher (`npm start`) on its children: the comma-separated names of the variables it
 * added or changed for them. The agent withholds those names too, whatever they are. The variable
 * itself starts with `BRIA_`, so it is withheld as well.
 */
export const LAUNCHER_ADDED_VAR = 'BRIA_LAUNCHER_ADDED';

/** Prefixes of Bria's own variables (configuration, tokens, test seams). */
export const WITHHELD_PREFIXES: readonly string[] = ['BRIA_', 'TELEGRAM_'];

/**
 * Exact names withheld: Bria's database URL and every variable libpq / node-postgres read as
 * connection defaults (a password or service file given to Bria that way is Bria's secret too).
 */
export const WITHHELD_NAMES: readonly string[] = [
  'DATABASE_URL',
  'PGHOST',
  'PGHOSTADDR',
  'PGPORT',
  'PGDATABASE',
  'PGUSER',
  'PGPASSWORD',
  'PGPASSFILE',
  'PGSERVICE',
  'PGSERVICEFILE',
  'PGOPTIONS',
  'PGAPPNAME',
  'PGSSLMODE',
  'PGSSLCERT',
  'PGSSLKEY',
  'PGSSLROOTCERT',
  'PGSSLCRL',
  'PGSSLPASSWORD',
  'PGCHANNELBINDING',
  'PGREQUIRESSL',
  'PGCONNECT_TIMEOUT',
  'PGTARGETSESSIONATTRS',
  'PGKRBSRVNAME',
  'PGGSSLIB',
  'PGCLIENTENCODING',
  'PGTZ',
  'PGDATESTYLE',
];

/** The names `LAUNCHER_ADDED_VAR` lists; anything that is not a plain variable name is ignored. */
export function launcherAddedNames(env: Readonly<Record<string, string | undefined>>): string[] {
  return (env[LAUNCHER_ADDED_VAR] ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
}

/**
 * What `npm start` / `npm run agent` add for the scripts they run (`npm_lifecycle_event` tells that
 * npm started us): Bria's package and npm settings (`npm_config_local_prefix` is Bria's folder), not
 * the user's. npm's additions to PATH stay (see README, "What the CLIs get").
 */
const NPM_ADDED = ['INIT_CWD', 'NODE', 'COLOR'];

/** Whether a variable of the agent's environment is kept from the CLIs. */
export function isWithheld(name: string, launcherAdded: ReadonlySet<string> = new Set()): boolean {
  return WITHHELD_PREFIXES.some((p) => name.startsWith(p)) || WITHHELD_NAMES.includes(name) || launcherAdded.has(name);
}

/** The names this environment withholds beyond the fixed ones: the launcher's list, and npm's additions when npm started the agent. */
export function addedNames(env: Readonly<Record<string, string | undefined>>): Set<string> {
  const added = new Set(launcherAddedNames(env));
  if (env.npm_lifecycle_event !== undefined) {
    for (const name of Object.keys(env)) if (name.startsWith('npm_') || NPM_ADDED.includes(name)) added.add(name);
  }
  return added;
}

/** The environment a CLI runs with: the agent's own minus everything `isWithheld` names. */
export function cliEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const added = addedNames(env);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isWithheld(name, added)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The launcher's side: the child's environment with `LAUNCHER_ADDED_VAR` naming every variable
 * the launcher added to or changed in its own environment (`base`).
 */
export function markLauncherAdded(
  base: Readonly<Record<string, string | undefined>>,
  child: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const added = Object.keys(child).filter((n) => n !== LAUNCHER_ADDED_VAR && child[n] !== undefined && child[n] !== base[n]);
  return { ...child, [LAUNCHER_ADDED_VAR]: added.sort().join(',') };
}
