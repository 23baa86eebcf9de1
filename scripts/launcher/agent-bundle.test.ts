import { statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAgentBundle } from '../../packages/core/src/agent-bundle.ts';
import { scratchDir } from '../../packages/testkit/src/scratch.ts';
import { ensureAgentBundle } from './agent-bundle.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('npm start and the agent bundle', () => {
  it('builds it when missing, not again while fresh, again after an agent source changed', async () => {
    const dir = scratchDir('bria-launcher-bundle-');
    const said: string[] = [];
    await ensureAgentBundle(root, dir, (m) => said.push(m));
    expect(said).toEqual([expect.stringMatching(/^Built the agent for other computers: .* 0\.1\.0-[0-9a-f]{8} \(\d+ KiB, \d+ ms\)\.$/)]);
    const first = readAgentBundle(dir)!;
    expect(first.version).toMatch(/-[0-9a-f]{8}$/);
    await ensureAgentBundle(root, dir, (m) => said.push(m));
    expect(said).toHaveLength(1);
    // A source newer than the build (its mtime moved forward, then put back).
    const source = path.join(root, 'apps/node-agent/src/bundle-info.ts');
    const { atime, mtime } = statSync(source);
    const later = new Date(statSync(path.join(dir, 'latest.json')).mtimeMs + 5_000);
    utimesSync(source, later, later);
    try {
      await ensureAgentBundle(root, dir, (m) => said.push(m));
    } finally {
      utimesSync(source, atime, mtime);
    }
    expect(said).toHaveLength(2);
    // Same sources, same bytes: the version is reproducible.
    expect(readAgentBundle(dir)!.version).toBe(first.version);
  });
});
