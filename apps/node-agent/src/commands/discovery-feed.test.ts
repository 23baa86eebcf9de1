import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeLines, claudeProjectDir, writeClaudeSession } from '../discovery/synthetic-store.ts';
import { DiscoveryFeed } from './discovery-feed.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bria-feed-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const A = 'aaaaaaaa-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const B = 'bbbbbbbb-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const turn = { prompt: 'hello', reply: 'hi', at: '2026-12-01T10:00:00.000Z', toolBytes: 0 };
type Diff = { added: { nativeSessionId?: unknown }[]; removed: { executor: string; nativeSessionId: string }[] };

describe('discovery feed across an agent restart', () => {
  it('a native session whose journal was deleted while the agent was down is reported removed on the first scan, once', async () => {
    const claudeHome = join(root, '.claude');
    const stateDir = join(root, 'agent');
    const fileA = writeClaudeSession(claudeHome, { sessionId: A, cwd: '/a', turns: [turn] });
    writeClaudeSession(claudeHome, { sessionId: B, cwd: '/b', turns: [turn] });
    const before: Diff[] = [];
    const first = new DiscoveryFeed({ claudeHome, codexHome: null, stateDir }, (d) => before.push(d as Diff));
    expect(await first.start()).toBe(2);
    first.close();
    expect(before[0]!.removed).toEqual([]);

    rmSync(fileA);
    const after: Diff[] = [];
    const second = new DiscoveryFeed({ claudeHome, codexHome: null, stateDir }, (d) => after.push(d as Diff));
    expect(await second.start()).toBe(1);
    expect(after[0]!.added.map((s) => s.nativeSessionId)).toEqual([B]);
    expect(after[0]!.removed).toEqual([{ executor: 'claude', nativeSessionId: A }]);
    second.close();

    const third: Diff[] = [];
    const again = new DiscoveryFeed({ claudeHome, codexHome: null, stateDir }, (d) => third.push(d as Diff));
    await again.start();
    again.close();
    expect(third[0]!.removed).toEqual([]);
  });
});

describe('discovery feed and a journal that does not yet name its folder', () => {
  it('reports the session only once its folder is known, with that folder', async () => {
    const claudeHome = join(root, '.claude');
    // `claude -p` creates the journal with queue records before the first record carrying `cwd`.
    const lines = claudeLines({ sessionId: A, cwd: '/work/a', turns: [turn], sdk: true });
    const file = join(claudeProjectDir(claudeHome, '/work/a'), `${A}.jsonl`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify({ type: 'queue-operation', operation: 'enqueue', timestamp: turn.at, sessionId: A })}\n`);
    const sent: Wire[] = [];
    const feed = new DiscoveryFeed({ claudeHome, codexHome: null, stateDir: join(root, 'agent') }, (d) => sent.push(d as unknown as Wire));
    try {
      expect(await feed.start()).toBe(0);
      expect(sent.flatMap((d) => [...d.added, ...d.changed])).toEqual([]);
      appendFileSync(file, `${lines.join('\n')}\n`);
      const reported = await waitFor(() => sent.flatMap((d) => [...d.added, ...d.changed]).find((s) => s.nativeSessionId === A), 20_000);
      expect(reported.folder).toBe('/work/a');
      expect(sent.flatMap((d) => [...d.added, ...d.changed]).every((s) => s.folder !== '')).toBe(true);
    } finally {
      feed.close();
    }
  });
});

type Wire = { added: { nativeSessionId: string; folder: string }[]; changed: { nativeSessionId: string; folder: string }[] };

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
