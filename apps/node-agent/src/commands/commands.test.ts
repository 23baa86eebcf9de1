import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_FRAME_BYTES } from '@bria/core/protocol';
import { chunkDiff } from './discovery-feed.ts';
import { SessionRegistry } from './registry.ts';
import { validateFolder } from './validate-folder.ts';

const root = mkdtempSync(path.join(tmpdir(), 'bria-cmd-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('validateFolder', () => {
  it('accepts a real absolute folder and refuses everything else with a reason', async () => {
    const dir = path.join(root, 'proj');
    mkdirSync(dir);
    writeFileSync(path.join(root, 'file.txt'), 'x');
    symlinkSync('/tmp', path.join(root, 'link'));
    expect(await validateFolder(dir)).toEqual({ ok: true, folder: dir });
    expect(await validateFolder('proj')).toMatchObject({ ok: false, reason: expect.stringMatching(/absolute/) });
    expect(await validateFolder(path.join(root, 'missing'))).toMatchObject({ ok: false, reason: expect.stringMatching(/does not exist/) });
    expect(await validateFolder(path.join(root, 'file.txt'))).toMatchObject({ ok: false, reason: expect.stringMatching(/file, not a folder/) });
    expect(await validateFolder(path.join(root, 'link'))).toMatchObject({ ok: false, reason: expect.stringMatching(/symbolic link/) });
  });
});

describe('chunkDiff', () => {
  it('keeps every discovery frame under the frame limit and loses nothing', () => {
    const big = 'p'.repeat(1900);
    const added = Array.from({ length: 3000 }, (_, i) => ({ executor: 'claude', nativeSessionId: `id-${i}`, folder: '/w', firstPrompt: big }));
    const chunks = chunkDiff({ added, changed: [], removed: [{ executor: 'codex', nativeSessionId: 'gone' }] });
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks)
      expect(Buffer.byteLength(JSON.stringify({ type: 'event', seq: 1, at: 0, event: 'discovery_diff', payload: c }))).toBeLessThan(MAX_FRAME_BYTES);
    expect(chunks.flatMap((c) => c.added).map((a) => a.nativeSessionId)).toEqual(added.map((a) => a.nativeSessionId));
    expect(chunks.flatMap((c) => c.removed)).toHaveLength(1);
  });
});

describe('SessionRegistry', () => {
  it('survives a restart with identity, generation, open turns and offsets', () => {
    const dir = path.join(root, 'reg');
    const a = new SessionRegistry(dir);
    a.put('s1', { executor: 'codex', folder: '/w', generation: 3, journalOffset: 42, turns: [{ messageId: 'm1', nativeRef: 't1' }] });
    a.put('s1', { generation: 4 });
    const b = new SessionRegistry(dir);
    expect(b.get('s1')).toMatchObject({ executor: 'codex', generation: 4, journalOffset: 42, turns: [{ messageId: 'm1', nativeRef: 't1' }], status: 'live' });
  });
});
