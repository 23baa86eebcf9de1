import { describe, expect, it } from 'vitest';
import { type CliInstall, chooseCli, declaredInstalls } from './cli-versions.ts';

const devDependencies = {
  '@anthropic-ai/claude-code': '2.1.197',
  '@openai/codex': '0.171.0',
  'claude-code-prev1': 'npm:@anthropic-ai/claude-code@2.1.196',
  'claude-code-prev2': 'npm:@anthropic-ai/claude-code@2.1.195',
  'codex-prev1': 'npm:@openai/codex@0.169.1',
  'codex-prev2': 'npm:@openai/codex@0.169.0',
  vitest: '4.1.12',
};
/** What `node_modules/<folder>/package.json` says; claude-code-prev2 declared but not installed. */
const onDisk: Record<string, string> = {
  '@anthropic-ai/claude-code': '2.1.197',
  '@openai/codex': '0.171.0',
  'claude-code-prev1': '2.1.196',
  'codex-prev1': '0.169.1',
  'codex-prev2': '0.169.0',
  vitest: '4.1.12',
};
const versionOf = (folder: string) => onDisk[folder] ?? null;

describe('declaredInstalls', () => {
  it('lists the pinned package first, then the installed aliases newest first, nothing else', () => {
    expect(declaredInstalls('claude', devDependencies, versionOf)).toEqual([
      { folder: '@anthropic-ai/claude-code', version: '2.1.197', pinned: true },
      { folder: 'claude-code-prev1', version: '2.1.196', pinned: false },
    ]);
    expect(declaredInstalls('codex', devDependencies, versionOf).map((i) => i.folder)).toEqual(['@openai/codex', 'codex-prev1', 'codex-prev2']);
  });
});

describe('chooseCli', () => {
  const claude = declaredInstalls('claude', devDependencies, versionOf);
  const codex = declaredInstalls('codex', devDependencies, versionOf);
  const cases: { kind: 'claude' | 'codex'; wish: string | undefined; installs: CliInstall[]; folder: string | null }[] = [
    { kind: 'claude', wish: undefined, installs: claude, folder: '@anthropic-ai/claude-code' },
    { kind: 'claude', wish: '', installs: claude, folder: '@anthropic-ai/claude-code' },
    { kind: 'claude', wish: 'pinned', installs: claude, folder: '@anthropic-ai/claude-code' },
    { kind: 'claude', wish: '2.1.197', installs: claude, folder: '@anthropic-ai/claude-code' },
    { kind: 'claude', wish: 'prev1', installs: claude, folder: 'claude-code-prev1' },
    { kind: 'claude', wish: ' 2.1.196 ', installs: claude, folder: 'claude-code-prev1' },
    { kind: 'claude', wish: 'prev2', installs: claude, folder: null },
    { kind: 'claude', wish: '2.1.195', installs: claude, folder: null },
    { kind: 'claude', wish: '2.1.300', installs: claude, folder: null },
    { kind: 'codex', wish: 'prev2', installs: codex, folder: 'codex-prev2' },
    { kind: 'codex', wish: '0.169.1', installs: codex, folder: 'codex-prev1' },
    { kind: 'codex', wish: '2.1.196', installs: codex, folder: null },
    { kind: 'codex', wish: undefined, installs: [], folder: null },
  ];
  it.each(cases)('$kind $wish → $folder', ({ kind, wish, installs, folder }) => {
    const c = chooseCli(kind, wish, installs);
    if (folder === null) expect(c.ok).toBe(false);
    else expect(c).toEqual({ ok: true, install: expect.objectContaining({ folder }) });
  });

  it('names the variable, the wish and what is installed when it cannot choose', () => {
    const c = chooseCli('claude', '2.1.300', claude);
    expect(c.ok).toBe(false);
    if (!c.ok) {
      expect(c.message).toContain('BRIA_TEST_CLAUDE_VERSION=2.1.300');
      expect(c.message).toContain('Installed: 2.1.197 (pinned), 2.1.196 (claude-code-prev1)');
    }
  });
});
