import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type CliExecutor,
  cliVersionVerdict,
  cliVersionWarning,
  compareCliVersions,
  executorVersions,
  parseCliVersion,
  storedCliVersion,
  VERIFIED_CLI_VERSIONS,
} from './cli-versions.ts';

const table = { claude: ['2.1.195', '2.1.196', '2.1.197'], codex: ['0.169.0', '0.169.1', '0.171.0'] } as const;

describe('parseCliVersion', () => {
  it.each([
    ['2.1.197 (Claude Code)', '2.1.197'],
    ['codex-cli 0.171.0', '0.171.0'],
    ['codex-cli 0.172.0-alpha.3\n', '0.172.0-alpha.3'],
    ['Claude Code', null],
    ['', null],
  ])('%j → %j', (output, version) => expect(parseCliVersion(output)).toBe(version));
});

describe('compareCliVersions', () => {
  it.each([
    ['2.1.197', '2.1.197', 0],
    ['2.1.197', '2.1.96', 1],
    ['2.1.9', '2.1.10', -1],
    ['0.171.0', '0.169.1', 1],
    ['1.0.0', '0.999.999', 1],
    ['2.1.197-beta', '2.1.197', 0],
  ])('%s vs %s', (a, b, sign) => expect(Math.sign(compareCliVersions(a, b))).toBe(sign));
});

describe('cliVersionVerdict', () => {
  const cases: { executor: CliExecutor; output: string; kind: string; relation?: string }[] = [
    { executor: 'claude', output: '2.1.197 (Claude Code)', kind: 'verified' },
    { executor: 'claude', output: '2.1.195 (Claude Code)', kind: 'verified' },
    { executor: 'claude', output: '2.1.300 (Claude Code)', kind: 'unverified', relation: 'newer' },
    { executor: 'claude', output: '2.1.190 (Claude Code)', kind: 'unverified', relation: 'older' },
    { executor: 'claude', output: '1.0.0 (Claude Code)', kind: 'unverified', relation: 'older' },
    { executor: 'claude', output: '2.1.197-beta (Claude Code)', kind: 'unverified', relation: 'between' },
    { executor: 'codex', output: 'codex-cli 0.171.0', kind: 'verified' },
    { executor: 'codex', output: 'codex-cli 0.170.0', kind: 'unverified', relation: 'between' },
    { executor: 'codex', output: 'codex-cli 0.2.0', kind: 'unverified', relation: 'older' },
    { executor: 'codex', output: 'codex-cli 1.0.0', kind: 'unverified', relation: 'newer' },
    { executor: 'codex', output: '2.1.197', kind: 'unverified', relation: 'newer' },
    { executor: 'codex', output: 'command not understood', kind: 'unknown' },
  ];
  it.each(cases)('$executor $output → $kind $relation', ({ executor, output, kind, relation }) => {
    const v = cliVersionVerdict(executor, output, table);
    expect(v.kind).toBe(kind);
    if (v.kind === 'unverified') expect(v.relation).toBe(relation);
    if (v.kind !== 'verified') expect(v.verified).toEqual(table[executor]);
  });

  it('warns in one sentence naming the CLI, its version and the verified ones; nothing when verified', () => {
    expect(cliVersionWarning('claude', cliVersionVerdict('claude', '2.1.300 (Claude Code)', table))).toBe(
      'Claude Code 2.1.300 — not verified with this Bria (newer than the verified ones); verified: 2.1.195, 2.1.196, 2.1.197',
    );
    expect(cliVersionWarning('codex', cliVersionVerdict('codex', '???', table))).toContain('Codex — its version could not be read');
    expect(cliVersionWarning('claude', cliVersionVerdict('claude', '2.1.196', table))).toBeNull();
  });
});

describe('VERIFIED_CLI_VERSIONS', () => {
  const root = new URL('../../../../', import.meta.url);
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

  it('equals the rows marked verified in the README table "Verified CLI versions"', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    const section = readme.split(/^## Verified CLI versions$/m)[1]?.split(/^## /m)[0] ?? '';
    const rows = section
      .split('\n')
      .filter((l) => /^\| (Claude Code|Codex) \|/.test(l))
      .map((l) => l.split('|').map((c) => c.trim()));
    const fromReadme: Record<CliExecutor, string[]> = { claude: [], codex: [] };
    for (const [, cli, version, , , , verified] of rows) {
      if (verified?.startsWith('yes')) fromReadme[cli === 'Codex' ? 'codex' : 'claude'].push(parseCliVersion(version ?? '') ?? '?');
    }
    expect(rows.length).toBeGreaterThan(0);
    for (const e of ['claude', 'codex'] as const) expect([...fromReadme[e]].sort(compareCliVersions)).toEqual([...VERIFIED_CLI_VERSIONS[e]]);
  });

  it('ends with the versions pinned in package.json', () => {
    expect(VERIFIED_CLI_VERSIONS.claude.at(-1)).toBe(pkg.devDependencies['@anthropic-ai/claude-code']);
    expect(VERIFIED_CLI_VERSIONS.codex.at(-1)).toBe(pkg.devDependencies['@openai/codex']);
  });
});

describe('executorVersions / storedCliVersion', () => {
  it('keeps the number of each runnable CLI, the raw line when it names none, nothing for a missing CLI', () => {
    const stored = executorVersions([
      { executor: 'claude', available: true, version: '2.1.300 (Claude Code)' },
      { executor: 'codex', available: false },
    ]);
    expect(stored).toEqual(['claude:2.1.300']);
    expect(storedCliVersion(stored, 'claude')).toBe('2.1.300');
    expect(storedCliVersion(stored, 'codex')).toBeNull();
    expect(executorVersions([{ executor: 'codex', available: true, version: 'dev build' }])).toEqual(['codex:dev build']);
  });
});
