import { describe, expect, it } from 'vitest';
import { cliEnvironment, LAUNCHER_ADDED_VAR, markLauncherAdded } from './cli-env.ts';

describe('cliEnvironment', () => {
  it("keeps the user's variables and withholds Bria's own, libpq's and the launcher's", () => {
    const env = {
      HOME: '/home/u',
      PATH: '/usr/bin',
      HTTPS_PROXY: 'http://proxy:3128',
      ANTHROPIC_API_KEY: 'sk-user',
      OPENAI_BASE_URL: 'http://m',
      CLAUDE_CONFIG_DIR: '/c',
      CODEX_HOME: '/x',
      DATABASE_URL: 'postgres://bria:pw@h/db',
      BRIA_AGENT_TOKEN: 'tok-1234567890',
      BRIA_HUB_URL: 'ws://h/agent',
      TELEGRAM_BOT_TOKEN: '123:abc',
      TELEGRAM_ALLOWED_USERS: '42',
      PGPASSWORD: 'pw',
      PGHOST: 'h',
      LAUNCHER_ONLY: 'x',
      [LAUNCHER_ADDED_VAR]: 'LAUNCHER_ONLY, not a name!,DATABASE_URL',
    };
    expect(cliEnvironment(env)).toEqual({
      HOME: '/home/u',
      PATH: '/usr/bin',
      HTTPS_PROXY: 'http://proxy:3128',
      ANTHROPIC_API_KEY: 'sk-user',
      OPENAI_BASE_URL: 'http://m',
      CLAUDE_CONFIG_DIR: '/c',
      CODEX_HOME: '/x',
    });
  });

  it("withholds npm's run variables only when npm started the agent", () => {
    const npm = { HOME: '/h', npm_lifecycle_event: 'start', npm_config_local_prefix: '/bria', INIT_CWD: '/bria', NODE: '/usr/bin/node' };
    expect(cliEnvironment(npm)).toEqual({ HOME: '/h' });
    expect(cliEnvironment({ HOME: '/h', npm_config_registry: 'http://r', NODE: '/n' })).toEqual({ HOME: '/h', npm_config_registry: 'http://r', NODE: '/n' });
  });
});

describe('markLauncherAdded', () => {
  it('names every variable the launcher added or changed, and nothing the user set unchanged', () => {
    const base = { HOME: '/h', LOG_LEVEL: 'info', DATABASE_URL: 'postgres://a' };
    const child = markLauncherAdded(base, { ...base, DATABASE_URL: 'postgres://b', EXTRA: '1', BRIA_AGENT_TOKEN: 't' });
    expect(child[LAUNCHER_ADDED_VAR]).toBe('BRIA_AGENT_TOKEN,DATABASE_URL,EXTRA');
    expect(cliEnvironment(child)).toEqual({ HOME: '/h', LOG_LEVEL: 'info' });
  });
});
