import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTrustedDir, claudeBin, cliSelection, codexBin, createCliHome, MOCK_ANTHROPIC_KEY } from './cli-homes.ts';
import { startAnthropicMock } from './mock-models/anthropic-mock.ts';
import { createTmuxTestServer, writeLaunchScript } from './mock-models/tmux-test-server.ts';

describe('createCliHome', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'bria-cli-homes-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('points at the selected CLIs of this repository (the pinned ones unless BRIA_TEST_*_VERSION says otherwise)', () => {
    for (const [bin, install] of [
      [claudeBin, cliSelection.claude],
      [codexBin, cliSelection.codex],
    ] as const) {
      accessSync(bin, constants.X_OK);
      expect(realpathSync(bin)).toContain(`/node_modules/${install.folder}/`);
      expect(execFileSync(bin, ['--version'], { encoding: 'utf8' })).toContain(install.version);
      if (install.pinned) expect(bin).toMatch(/\/node_modules\/\.bin\/(claude|codex)$/);
    }
  });

  it('seeds Claude and Codex config and returns a complete environment', async () => {
    const work = join(root, 'work');
    await mkdir(work);
    const { home, env } = await createCliHome({
      root,
      trustedDirs: [work],
      anthropicUrl: 'http://127.0.0.1:4010/',
      openaiUrl: 'http://127.0.0.1:4020',
    });
    expect(home.startsWith(join(root, 'home-'))).toBe(true);

    const claudeJson = JSON.parse(await readFile(join(home, '.claude.json'), 'utf8'));
    expect(claudeJson.hasCompletedOnboarding).toBe(true);
    expect(claudeJson.customApiKeyResponses.approved).toEqual([env.ANTHROPIC_API_KEY?.slice(-20)]);
    expect(claudeJson.projects[work]).toEqual({ hasTrustDialogAccepted: true });
    const settings = JSON.parse(await readFile(join(home, '.claude', 'settings.json'), 'utf8'));
    expect(settings.skipDangerousModePermissionPrompt).toBe(true);

    const toml = await readFile(join(home, '.codex', 'config.toml'), 'utf8');
    expect(toml).toContain('model_provider = "mock"');
    expect(toml).toContain('base_url = "http://127.0.0.1:4020/v1"');
    expect(toml).toContain('env_key = "MOCK_OPENAI_KEY"');
    expect(toml).toContain('wire_api = "responses"');
    expect(toml).toMatch(/\[analytics\]\nenabled = false/);
    expect(toml).toContain(`[projects.${JSON.stringify(work)}]\ntrust_level = "trusted"`);

    expect(env).toMatchObject({
      HOME: home,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:4010',
      ANTHROPIC_API_KEY: MOCK_ANTHROPIC_KEY,
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
      IS_SANDBOX: '1',
      CODEX_HOME: join(home, '.codex'),
    });
    expect(env.MOCK_OPENAI_KEY?.length).toBeGreaterThan(0);
    expect(existsSync(env.CLAUDE_CODE_TMPDIR ?? '/nonexistent')).toBe(true);
    expect(env.CLAUDE_CODE_TMPDIR?.startsWith(home)).toBe(true);
    expect(env.PATH?.split(':')[0]).toBe(join(claudeBin, '..'));
  });

  it('addTrustedDir adds a folder once to both CLIs, under its given and its real path', async () => {
    const { home } = await createCliHome({ root, anthropicUrl: 'http://127.0.0.1:1', openaiUrl: 'http://127.0.0.1:2/v1' });
    const real = join(root, 'real-dir');
    const link = join(root, 'link-dir');
    await mkdir(real);
    await symlink(real, link);
    await addTrustedDir(home, link);
    await addTrustedDir(home, link);

    const claudeJson = JSON.parse(await readFile(join(home, '.claude.json'), 'utf8'));
    expect(Object.keys(claudeJson.projects).sort()).toEqual([link, real].sort());
    expect(claudeJson.hasCompletedOnboarding).toBe(true);
    const toml = await readFile(join(home, '.codex', 'config.toml'), 'utf8');
    expect(toml.split(`[projects.${JSON.stringify(link)}]`)).toHaveLength(2);
    expect(toml.split(`[projects.${JSON.stringify(real)}]`)).toHaveLength(2);
    expect(toml).toContain('base_url = "http://127.0.0.1:2/v1"');
  });
});

describe('control: without the seeded answers Claude does ask', () => {
  it('shows the API key dialog when the key is not approved', async () => {
    const root = await mkdtemp(join(tmpdir(), 'bria-cli-homes-control-'));
    const mock = await startAnthropicMock();
    const { home, env } = await createCliHome({ root, trustedDirs: [root], anthropicUrl: mock.url, openaiUrl: mock.url });
    const tmux = createTmuxTestServer(env.PATH ?? '');
    try {
      const claudeJson = JSON.parse(await readFile(join(home, '.claude.json'), 'utf8'));
      claudeJson.customApiKeyResponses = { approved: [], rejected: [] };
      await writeFile(join(home, '.claude.json'), JSON.stringify(claudeJson));
      const script = join(root, 'claude.sh');
      await writeLaunchScript(script, env, [claudeBin]);
      await tmux.start('claude', root, script);
      const screen = await tmux.waitForScreen('claude', (s) => /API key/i.test(s), 30_000);
      expect(screen).not.toContain('? for shortcuts');
    } finally {
      await tmux.destroy();
      await mock.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
