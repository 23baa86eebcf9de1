import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiscoveryIndex } from './discovery-index.ts';
import { claudeLines, type Turn, writeClaudeSession, writeCodexSession } from './synthetic-store.ts';
import type { SessionDiff, SessionWatcher } from './watch-sessions.ts';

let root: string;
let watcher: SessionWatcher | null = null;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bria-disc-watch-'));
});
afterEach(() => {
  watcher?.close();
  rmSync(root, { recursive: true, force: true });
});

const A = 'aaaaaaaa-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const turn = (i: number): Turn => ({ prompt: `prompt ${i}`, reply: `reply ${i}`, at: new Date(Date.parse('2026-12-01T10:00:00Z') + i * 60_000).toISOString() });

function nextDiff(w: SessionWatcher): Promise<SessionDiff> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no diff within 5 s')), 5000);
    w.once('diff', (d) => {
      clearTimeout(timer);
      resolve(d);
    });
  });
}

describe('watchSessions', () => {
  it('emits added, changed and removed as journals appear, grow and disappear', async () => {
    const claudeHome = join(root, '.claude');
    const codexHome = join(root, '.codex');
    // The Codex day directory does not exist yet when watching starts.
    writeClaudeSession(claudeHome, { sessionId: A, cwd: '/a', turns: [turn(0)] });
    const index = new DiscoveryIndex({ claudeHome, codexHome, stateDir: join(root, 'state') });
    watcher = index.watch({ debounceMs: 30, safetyScanMs: 500 });
    const initial = await watcher.ready;
    expect(initial.sessions.map((s) => s.nativeId)).toEqual([A]);

    let diff = nextDiff(watcher);
    const codexFile = writeCodexSession(codexHome, {
      id: '01a23651-d848-7b63-9a2f-558796e706b5',
      cwd: '/c',
      startedAt: '2026-12-02T10:00:00.000Z',
      turns: [turn(0)],
    });
    const added = await diff;
    expect(added.added.map((s) => [s.executor, s.file])).toEqual([['codex', codexFile]]);
    expect(added.changed).toEqual([]);

    diff = nextDiff(watcher);
    const claudeFile = join(claudeHome, 'projects', '-a', `${A}.jsonl`);
    appendFileSync(
      claudeFile,
      `${claudeLines({ sessionId: A, cwd: '/a', turns: [turn(1)] })
        .slice(2)
        .join('\n')}\n`,
    );
    const changed = await diff;
    expect(changed.changed.map((s) => [s.nativeId, s.userTurns, s.lastPrompt])).toEqual([[A, 2, 'prompt 1']]);
    // inotify named the file, so only that file was looked at, not the whole store.
    expect(changed.stats.filesSeen).toBe(1);

    diff = nextDiff(watcher);
    mkdirSync(join(claudeHome, 'sessions'), { recursive: true });
    writeFileSync(join(claudeHome, 'sessions', `${process.pid}.json`), JSON.stringify({ pid: process.pid, sessionId: A, cwd: '/a' }));
    const live = await diff;
    expect(live.changed.map((s) => [s.nativeId, s.live])).toEqual([[A, true]]);

    diff = nextDiff(watcher);
    rmSync(claudeFile);
    const removed = await diff;
    expect(removed.removed.map((s) => s.nativeId)).toEqual([A]);
    expect(watcher.sessions().map((s) => s.executor)).toEqual(['codex']);
  });
});
