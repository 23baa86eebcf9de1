import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { VERIFIED_CLI_VERSIONS } from '@bria/core/protocol';
import { claudeBin, codexBin } from '@bria/testkit/cli-homes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeExecutors } from './agent.ts';
import { warnUnverifiedClis } from './cli-version-check.ts';
import type { AgentLog } from './log.ts';

function collect(): { log: AgentLog; entries: { level: string; msg: string; fields?: Record<string, unknown> }[] } {
  const entries: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  return { entries, log: (level, msg, fields) => entries.push({ level, msg, ...(fields ? { fields } : {}) }) };
}

describe('warnUnverifiedClis', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bria-cli-version-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A stand-in CLI that only answers `--version` with the given line. */
  async function versionOnly(name: string, line: string): Promise<string> {
    const file = path.join(dir, name);
    await writeFile(file, `#!/bin/sh\necho '${line}'\n`);
    await chmod(file, 0o755);
    return file;
  }

  it('is silent for the CLIs the suites run (the pinned ones are verified)', async () => {
    const probes = await probeExecutors({ claudeBin, codexBin });
    expect(probes.map((p) => p.available)).toEqual([true, true]);
    const { log, entries } = collect();
    warnUnverifiedClis(log, probes);
    expect(entries).toEqual([]);
  });

  it('warns (never refuses) for a version not in the verified list, naming it and the verified ones', async () => {
    const probes = await probeExecutors({
      claudeBin: await versionOnly('claude', '2.1.300 (Claude Code)'),
      codexBin: await versionOnly('codex', 'codex-cli 0.1.0'),
    });
    expect(probes).toEqual([
      { executor: 'claude', available: true, version: '2.1.300 (Claude Code)' },
      { executor: 'codex', available: true, version: 'codex-cli 0.1.0' },
    ]);
    const { log, entries } = collect();
    warnUnverifiedClis(log, probes);
    expect(entries).toEqual([
      {
        level: 'warn',
        msg: 'agent.cli_version_unverified',
        fields: expect.objectContaining({ executor: 'claude', version: '2.1.300', relation: 'newer', verified: [...VERIFIED_CLI_VERSIONS.claude] }),
      },
      { level: 'warn', msg: 'agent.cli_version_unverified', fields: expect.objectContaining({ executor: 'codex', version: '0.1.0', relation: 'older' }) },
    ]);
    expect(entries[0]?.fields?.warning).toBe(
      `Claude Code 2.1.300 — not verified with this Bria (newer than the verified ones); verified: ${VERIFIED_CLI_VERSIONS.claude.join(', ')}`,
    );
  });

  it('says nothing about a CLI that is not installed (that is reported as missing instead)', async () => {
    const probes = await probeExecutors({ claudeBin: path.join(dir, 'nope'), codexBin: await versionOnly('codex2', 'codex-cli 0.171.0') });
    const { log, entries } = collect();
    warnUnverifiedClis(log, probes);
    expect(probes[0]?.available).toBe(false);
    expect(entries).toEqual([]);
  });
});
