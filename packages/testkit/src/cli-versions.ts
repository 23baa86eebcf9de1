// Which install of each real CLI the suites run: the pinned one by default, or one of the older
// releases installed beside it as aliased dev dependencies (docs/cli-versions.md), chosen with
// BRIA_TEST_CLAUDE_VERSION / BRIA_TEST_CODEX_VERSION. A choice that is not installed fails loudly.
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type CliKind = 'claude' | 'codex';

export const CLI_PACKAGES = { claude: '@anthropic-ai/claude-code', codex: '@openai/codex' } as const satisfies Record<CliKind, string>;
export const CLI_VERSION_ENV = { claude: 'BRIA_TEST_CLAUDE_VERSION', codex: 'BRIA_TEST_CODEX_VERSION' } as const satisfies Record<CliKind, string>;
/** The executable inside each package (what its `bin` entry names). */
const BIN_IN_PACKAGE = { claude: 'bin/claude.exe', codex: 'bin/codex.js' } as const satisfies Record<CliKind, string>;

/** One install of a CLI: `node_modules/<folder>`, the version its package.json says. */
export interface CliInstall {
  folder: string;
  version: string;
  pinned: boolean;
}

/**
 * The installs of one CLI that the root package.json declares: the package under its own name (the
 * pinned one) and every alias `npm:<package>@<version>`. `versionOf` reads the installed version
 * (null: declared but not installed).
 */
export function declaredInstalls(kind: CliKind, devDependencies: Record<string, string>, versionOf: (folder: string) => string | null): CliInstall[] {
  const pkg = CLI_PACKAGES[kind];
  const out: CliInstall[] = [];
  for (const [name, spec] of Object.entries(devDependencies)) {
    const pinned = name === pkg;
    if (!pinned && !spec.startsWith(`npm:${pkg}@`)) continue;
    const version = versionOf(name);
    if (version) out.push({ folder: name, version, pinned });
  }
  return out.sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.version.localeCompare(a.version, 'en', { numeric: true }));
}

export type CliChoice = { ok: true; install: CliInstall } | { ok: false; message: string };

/**
 * Pure: the install a wish names. Unset, empty or `pinned`: the pinned one; `prev1`, `prev2`…: the
 * alias `<claude-code|codex>-prevN`; anything else: the install of exactly that version.
 */
export function chooseCli(kind: CliKind, wish: string | undefined, installs: readonly CliInstall[]): CliChoice {
  const w = wish?.trim() ?? '';
  const found =
    w === '' || w === 'pinned'
      ? installs.find((i) => i.pinned)
      : /^prev\d+$/.test(w)
        ? installs.find((i) => i.folder === `${aliasStem(kind)}-${w}`)
        : installs.find((i) => i.version === w);
  if (found) return { ok: true, install: found };
  const have = installs.map((i) => `${i.version} (${i.pinned ? 'pinned' : i.folder})`).join(', ') || 'none';
  return {
    ok: false,
    message: `${CLI_VERSION_ENV[kind]}=${w || 'pinned'}: no such ${CLI_PACKAGES[kind]} in node_modules. Installed: ${have}. Add it as an aliased dev dependency (docs/cli-versions.md) and run npm install.`,
  };
}

function aliasStem(kind: CliKind): string {
  return kind === 'claude' ? 'claude-code' : 'codex';
}

const root = fileURLToPath(new URL('../../../', import.meta.url));
const modules = join(root, 'node_modules');

function installedVersion(folder: string): string | null {
  try {
    return JSON.parse(readFileSync(join(modules, folder, 'package.json'), 'utf8')).version ?? null;
  } catch {
    return null;
  }
}

function chosen(kind: CliKind, env: NodeJS.ProcessEnv): CliInstall {
  const devDependencies = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies ?? {};
  const choice = chooseCli(kind, env[CLI_VERSION_ENV[kind]], declaredInstalls(kind, devDependencies, installedVersion));
  if (!choice.ok) throw new Error(choice.message);
  return choice.install;
}

export interface CliSelection {
  claude: CliInstall;
  codex: CliInstall;
  /** A folder holding `claude` and `codex` of the selected installs (put first on the CLIs' PATH). */
  binDir: string;
}

/**
 * Resolves the selection once per process. Both pinned: `node_modules/.bin` (checked to point at
 * the pinned packages). Otherwise a folder under `node_modules/.cache/bria-cli-matrix/` with the two
 * links, named by the versions.
 */
export function selectClis(env: NodeJS.ProcessEnv = process.env): CliSelection {
  const claude = chosen('claude', env);
  const codex = chosen('codex', env);
  const target = (kind: CliKind, i: CliInstall) => join(modules, i.folder, BIN_IN_PACKAGE[kind]);
  if (claude.pinned && codex.pinned) {
    const binDir = join(modules, '.bin');
    for (const [kind, i] of [
      ['claude', claude],
      ['codex', codex],
    ] as const) {
      const link = join(binDir, kind);
      if (!existsSync(link) || realpathSync(link) !== realpathSync(target(kind, i))) {
        throw new Error(`${link} does not point at the pinned ${CLI_PACKAGES[kind]}; run npm install (its postinstall relinks it).`);
      }
    }
    return { claude, codex, binDir };
  }
  const binDir = join(modules, '.cache', 'bria-cli-matrix', `claude-${claude.version}_codex-${codex.version}`);
  mkdirSync(binDir, { recursive: true });
  for (const [kind, i] of [
    ['claude', claude],
    ['codex', codex],
  ] as const) {
    const link = join(binDir, kind);
    if (existsSync(link) && realpathSync(link) === realpathSync(target(kind, i))) continue;
    // Test files start in parallel: each writes its own link and renames it into place.
    const tmp = `${link}.${process.pid}.${Date.now()}`;
    symlinkSync(target(kind, i), tmp);
    renameSync(tmp, link);
  }
  return { claude, codex, binDir };
}
