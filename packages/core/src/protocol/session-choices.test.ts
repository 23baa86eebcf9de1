import { describe, expect, it } from 'vitest';
import { parseSessionCommand } from './session-commands.ts';
import {
  CLAUDE_PERMISSION_MODES,
  CODEX_PERMISSION_MODES,
  DEFAULT_PERMISSION_MODE,
  isPermissionMode,
  MODEL_SUGGESTIONS,
  parseModel,
  permissionModeOf,
} from './session-choices.ts';

describe('permission modes: one closed list per executor', () => {
  it('offers the CLIs own modes and nothing else', () => {
    expect(CLAUDE_PERMISSION_MODES).toEqual(['default', 'acceptEdits', 'plan', 'bypassPermissions']);
    expect(CODEX_PERMISSION_MODES).toEqual(['workspace-write', 'read-only', 'full-access']);
    expect(isPermissionMode('claude', 'plan')).toBe(true);
    expect(isPermissionMode('codex', 'plan')).toBe(false);
    expect(isPermissionMode('claude', 'read-only')).toBe(false);
    expect(isPermissionMode('claude', 'auto')).toBe(false);
    expect(DEFAULT_PERMISSION_MODE).toEqual({ claude: 'default', codex: 'workspace-write' });
  });

  it('reads values stored before the lists by what they launched', () => {
    expect(permissionModeOf('claude', 'default')).toBe('default');
    expect(permissionModeOf('claude', 'accept-edits')).toBe('acceptEdits');
    expect(permissionModeOf('claude', 'full-access')).toBe('bypassPermissions');
    expect(permissionModeOf('codex', 'default')).toBe('workspace-write');
    expect(permissionModeOf('codex', 'accept-edits')).toBe('workspace-write');
    expect(permissionModeOf('codex', 'full-access')).toBe('full-access');
    expect(permissionModeOf('codex', 'read-only')).toBe('read-only');
    expect(permissionModeOf('claude', 'plan')).toBe('plan');
  });

  it('never reads an unknown or other executor value as anything but the default', () => {
    expect(permissionModeOf('claude', 'read-only')).toBe('default');
    expect(permissionModeOf('codex', 'bypassPermissions')).toBe('workspace-write');
    expect(permissionModeOf('claude', undefined)).toBe('default');
    expect(permissionModeOf('codex', null)).toBe('workspace-write');
  });
});

describe('model names', () => {
  it('empty means the CLI default; names are trimmed', () => {
    expect(parseModel('')).toEqual({ ok: true, model: null });
    expect(parseModel('   ')).toEqual({ ok: true, model: null });
    expect(parseModel(undefined)).toEqual({ ok: true, model: null });
    expect(parseModel(' opus ')).toEqual({ ok: true, model: 'opus' });
  });

  it('accepts every suggestion and real model ids', () => {
    for (const m of [...MODEL_SUGGESTIONS.claude, ...MODEL_SUGGESTIONS.codex, 'claude-opus-4-8[1m]', 'gpt-6.2-sol', 'openai/gpt-x@2026', 'mock-model']) {
      expect(parseModel(m)).toEqual({ ok: true, model: m });
    }
  });

  it('refuses whitespace, shell characters, option-looking names and long names', () => {
    for (const m of [
      'two words',
      'a\tb',
      'x;rm -rf',
      '$(id)',
      '`id`',
      'a|b',
      'a&b',
      'a>b',
      "o'pus",
      'o"pus',
      'a\\b',
      '-h',
      '--model=x',
      'a*',
      'a?',
      '~root',
      'a\nb',
    ]) {
      expect(parseModel(m).ok, m).toBe(false);
    }
    expect(parseModel('a'.repeat(100))).toEqual({ ok: true, model: 'a'.repeat(100) });
    expect(parseModel('a'.repeat(101))).toEqual({ ok: false, reason: 'too_long' });
  });

  it('the start and resume commands refuse a model the parser would refuse', () => {
    const base = { generation: 1, executor: 'claude', folder: '/w', permissionMode: 'plan', nativeSessionId: crypto.randomUUID() };
    expect(parseSessionCommand('start_session', { ...base, model: 'opus' }).ok).toBe(true);
    expect(parseSessionCommand('start_session', { ...base, model: 'op us' }).ok).toBe(false);
    expect(parseSessionCommand('resume_session', { ...base, nativeSessionId: 'x', model: '-x' }).ok).toBe(false);
    expect(parseSessionCommand('resume_session', { ...base, nativeSessionId: 'x', model: 'gpt-6.2-sol' }).ok).toBe(true);
  });
});

describe('the CLI commands that replace or fork a session stay unreachable as messages', () => {
  it('Claude /clear, /new, /resume (with or without an id) and /compact typed as text are refused', async () => {
    const { cliTextRefusal } = await import('./cli-text.ts');
    for (const text of ['/clear', '/new', '/resume', '/resume 5b0c7d1e-2f3a-4b5c-8d6e-7f8091a2b3c4', '/compact', '/fork']) {
      expect(cliTextRefusal('claude', text), text).toBe('msg.refusedCliCommand');
    }
  });
});
