import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { selectClis } from './cli-versions.ts';

/** The real CLIs the suites run: the pinned ones unless BRIA_TEST_*_VERSION chose another (cli-versions.ts). */
export const cliSelection = selectClis();
const binDir = cliSelection.binDir;

export const claudeBin = join(binDir, 'claude');
export const codexBin = join(binDir, 'codex');

/** Fixed fake key; Claude remembers approval by the last 20 characters. */
export const MOCK_ANTHROPIC_KEY = 'sk-ant-api03-bria-mock-key-000000000000-MOCKAA';
export const MOCK_OPENAI_KEY = 'bria-mock-openai-key';

export interface CreateCliHomeOptions {
  /** Existing directory; the home is created inside it as `home-XXXXXX`. */
  root: string;
  /** Folders the CLIs may open without a trust dialog (Claude also trusts their children). */
  trustedDirs?: string[];
  /** Anthropic mock base URL, without `/v1`. */
  anthropicUrl: string;
  /** OpenAI mock base URL, with or without `/v1`. */
  openaiUrl: string;
}

export interface CliHome {
  home: string;
  /** Complete environment for spawning `claude` / `codex` (pass as is, do not merge). */
  env: Record<string, string>;
}

function claudeJsonPath(home: string): string {
  return join(home, '.claude.json');
}

function codexConfigPath(home: string): string {
  return join(home, '.codex', 'config.toml');
}

/** Claude keys trust by the path it resolves, so both spellings are recorded. */
async function spellings(dir: string): Promise<string[]> {
  const real = existsSync(dir) ? await realpath(dir) : dir;
  return real === dir ? [dir] : [dir, real];
}

function tomlString(s: string): string {
  // JSON string escapes are valid TOML basic-string escapes.
  return JSON.stringify(s);
}

function codexConfig(openaiUrl: string): string {
  const base = openaiUrl.replace(/\/+$/, '');
  const baseUrl = base.endsWith('/v1') ? base : `${base}/v1`;
  return [
    'model = "mock-model"',
    'model_provider = "mock"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = ${tomlString(baseUrl)}`,
    'env_key = "MOCK_OPENAI_KEY"',
    'wire_api = "responses"',
    '',
    '[analytics]',
    'enabled = false',
    '[feedback]',
    'enabled = false',
    '[tui]',
    'show_tooltips = false',
    '[features]',
    'plugins = false',
    'apps = false',
    'remote_plugin = false',
    '',
  ].join('\n');
}

function codexTrustTable(dir: string): string {
  return `\n[projects.${tomlString(dir)}]\ntrust_level = "trusted"\n`;
}

/**
 * Creates a throw-away HOME in which neither CLI shows a start-up dialog: onboarding done,
 * the mock API key approved, the given folders trusted, bypass-permissions prompt pre-accepted,
 * Codex pointed at the OpenAI mock with analytics off.
 */
export async function createCliHome(opts: CreateCliHomeOptions): Promise<CliHome> {
  const home = await mkdtemp(join(opts.root, 'home-'));
  const claudeTmp = join(home, '.claude-tmp');
  await mkdir(join(home, '.claude'), { recursive: true });
  await mkdir(join(home, '.codex'), { recursive: true });
  await mkdir(claudeTmp, { recursive: true });

  await writeFile(
    claudeJsonPath(home),
    `${JSON.stringify(
      {
        hasCompletedOnboarding: true,
        customApiKeyResponses: { approved: [MOCK_ANTHROPIC_KEY.slice(-20)], rejected: [] },
        projects: {},
      },
      null,
      2,
    )}\n`,
  );
  await writeFile(join(home, '.claude', 'settings.json'), `${JSON.stringify({ skipDangerousModePermissionPrompt: true }, null, 2)}\n`);
  await writeFile(codexConfigPath(home), codexConfig(opts.openaiUrl));
  for (const dir of opts.trustedDirs ?? []) await addTrustedDir(home, dir);

  const env: Record<string, string> = {
    HOME: home,
    USER: userInfo().username,
    LOGNAME: userInfo().username,
    LANG: 'C.UTF-8',
    PATH: [binDir, dirname(process.execPath), '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(':'),
    ANTHROPIC_BASE_URL: opts.anthropicUrl.replace(/\/+$/, ''),
    ANTHROPIC_API_KEY: MOCK_ANTHROPIC_KEY,
    MOCK_OPENAI_KEY,
    CODEX_HOME: join(home, '.codex'),
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // Without this Claude still reaches out to install the official plugin marketplace.
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    CLAUDE_CODE_TMPDIR: claudeTmp,
    // Lets --dangerously-skip-permissions run as root (CI and these machines run as root).
    IS_SANDBOX: '1',
  };
  return { home, env };
}

/**
 * Trusts one more folder in an existing home. Claude: the folder and everything below it.
 * Codex: only this exact folder (it asks only inside git repositories: trust the repo root).
 */
export async function addTrustedDir(home: string, dir: string): Promise<void> {
  const names = await spellings(dir);
  const claudeJson = JSON.parse(await readFile(claudeJsonPath(home), 'utf8')) as {
    projects?: Record<string, Record<string, unknown>>;
  };
  const projects = claudeJson.projects ?? {};
  claudeJson.projects = projects;
  for (const name of names) projects[name] = { ...projects[name], hasTrustDialogAccepted: true };
  await writeFile(claudeJsonPath(home), `${JSON.stringify(claudeJson, null, 2)}\n`);

  const toml = await readFile(codexConfigPath(home), 'utf8');
  for (const name of names) {
    if (!toml.includes(`[projects.${tomlString(name)}]`)) await appendFile(codexConfigPath(home), codexTrustTable(name));
  }
}
