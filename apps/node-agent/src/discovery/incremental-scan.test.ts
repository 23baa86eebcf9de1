import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiscoveryIndex } from './discovery-index.ts';
import { STATE_FILE } from './index-state.ts';
import { claudeLines, type Turn, writeClaudeSession, writeCodexSession } from './synthetic-store.ts';

let root: string;
let claudeHome: string;
let codexHome: string;
let stateDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bria-disc-inc-'));
  claudeHome = join(root, '.claude');
  codexHome = join(root, '.codex');
  stateDir = join(root, 'state');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const A = 'aaaaaaaa-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const B = 'bbbbbbbb-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const turn = (i: number, toolBytes = 0): Turn => ({
  prompt: `prompt ${i}`,
  reply: `reply ${i}`,
  at: new Date(Date.parse('2026-12-01T10:00:00.000Z') + i * 60_000).toISOString(),
  toolBytes,
});
const open = (maxLineBytes?: number) => new DiscoveryIndex({ claudeHome, codexHome, stateDir, maxLineBytes });

describe('incremental discovery', () => {
  it('re-reads only the appended bytes, and nothing after a restart from the state file', async () => {
    const fileA = writeClaudeSession(claudeHome, { sessionId: A, cwd: '/a', turns: [turn(0, 20_000)] });
    writeClaudeSession(claudeHome, { sessionId: B, cwd: '/b', turns: [turn(0, 50_000)] });
    const codexFile = writeCodexSession(codexHome, {
      id: '01a23651-d848-7b63-9a2f-558796e706b5',
      cwd: '/c',
      startedAt: '2026-12-02T10:00:00.000Z',
      turns: [turn(0, 9_000)],
    });
    const total = statSync(fileA).size + statSync(join(fileA, '..', '..', '-b', `${B}.jsonl`)).size + statSync(codexFile).size;

    const index = open();
    const first = await index.scan();
    expect(first.stats).toMatchObject({ filesSeen: 3, filesRead: 3, bytesRead: total });
    expect(index.save()).toBe(true);

    const unchanged = await index.scan();
    expect(unchanged.stats).toMatchObject({ filesRead: 0, bytesRead: 0 });

    const appended = `${claudeLines({ sessionId: A, cwd: '/a', turns: [turn(1, 5_000)] })
      .slice(2)
      .join('\n')}\n`;
    appendFileSync(fileA, appended);
    const after = await index.scan();
    expect(after.stats).toMatchObject({ filesRead: 1, bytesRead: Buffer.byteLength(appended) });
    expect(after.sessions.find((s) => s.nativeId === A)).toMatchObject({ userTurns: 2, firstPrompt: 'prompt 0', lastPrompt: 'prompt 1' });
    index.save();

    const restarted = open();
    const again = await restarted.scan();
    expect(again.stats.bytesRead).toBe(0);
    expect(restarted.bytesReadTotal).toBe(0);
    expect(again.sessions.find((s) => s.nativeId === A)?.userTurns).toBe(2);
  });

  it('starts over from a damaged state file instead of failing', async () => {
    const fileA = writeClaudeSession(claudeHome, { sessionId: A, cwd: '/a', turns: [turn(0)] });
    const index = open();
    await index.scan();
    index.save();
    const stateFile = join(stateDir, STATE_FILE);
    writeFileSync(stateFile, readFileSync(stateFile, 'utf8').slice(0, 100));
    const again = await open().scan();
    expect(again.stats.bytesRead).toBe(statSync(fileA).size);
    expect(again.sessions.map((s) => s.userTurns)).toEqual([1]);
  });

  it('drops removed files and re-reads a file that was replaced or truncated', async () => {
    const fileA = writeClaudeSession(claudeHome, { sessionId: A, cwd: '/a', turns: [turn(0), turn(1)] });
    const fileB = writeClaudeSession(claudeHome, { sessionId: B, cwd: '/b', turns: [turn(0)] });
    const index = open();
    expect((await index.scan()).sessions).toHaveLength(2);
    rmSync(fileB);
    writeFileSync(fileA, `${claudeLines({ sessionId: A, cwd: '/a2', turns: [turn(5)] }).join('\n')}\n`);
    const { sessions } = await index.scan();
    expect(sessions.map((s) => [s.nativeId, s.cwd, s.userTurns, s.firstPrompt])).toEqual([[A, '/a2', 1, 'prompt 5']]);

    // Rewritten in place (same inode) to something longer than what was read before.
    writeFileSync(fileA, `${claudeLines({ sessionId: A, cwd: '/a3', turns: [turn(7, 30_000), turn(8), turn(9)] }).join('\n')}\n`);
    const rewritten = await index.scan();
    expect(rewritten.stats.bytesRead).toBe(statSync(fileA).size);
    expect(rewritten.sessions.map((s) => [s.cwd, s.userTurns, s.firstPrompt])).toEqual([['/a3', 3, 'prompt 7']]);
    expect(rewritten.problems).toEqual([]);
  });

  it('counts malformed lines, leaves a partial last line for later, and skips huge lines', async () => {
    const lines = claudeLines({ sessionId: A, cwd: '/a', turns: [turn(0, 200_000), turn(1)] });
    const file = join(writeClaudeSession(claudeHome, { sessionId: A, cwd: '/a', turns: [] }));
    const partial = claudeLines({ sessionId: A, cwd: '/a', turns: [turn(2)] }).find((l) => l.includes('"prompt 2"')) ?? '';
    writeFileSync(file, `${lines.join('\n')}\nnot json at all\n{"type":"user","message":{"content":"trunc\n\n${partial.slice(0, 40)}`);
    const index = open(64 * 1024);
    const first = await index.scan();
    expect(first.problems).toEqual([{ file, malformedLines: 2, hugeLines: 1, partialTail: true, unreadable: null }]);
    expect(first.sessions[0]).toMatchObject({ userTurns: 2, lastPrompt: 'prompt 1', lastActivityAt: '2026-12-01T10:01:01.001Z' });

    appendFileSync(file, `${partial.slice(40)}\n`);
    const second = await index.scan();
    expect(second.problems[0]).toMatchObject({ malformedLines: 2, partialTail: false });
    expect(second.sessions[0]).toMatchObject({ userTurns: 3, lastPrompt: 'prompt 2' });
  });

  it('ends up exact when a file is appended by another process while being scanned', async () => {
    const file = writeClaudeSession(claudeHome, { sessionId: A, cwd: '/a', turns: [turn(0, 400_000)] });
    const more = Array.from({ length: 300 }, (_, i) => turn(i + 1, 3_000));
    const chunks = more.map(
      (t) =>
        `${claudeLines({ sessionId: A, cwd: '/a', turns: [t] })
          .slice(2, -1)
          .join('\n')}\n`,
    );
    const payload = join(root, 'chunks.json');
    writeFileSync(payload, JSON.stringify(chunks));
    // The writer splits every chunk in two writes so scans also meet half-written lines.
    const writer = spawn(process.execPath, [
      '-e',
      `const fs=require('fs');const f=${JSON.stringify(file)};const c=JSON.parse(fs.readFileSync(${JSON.stringify(payload)},'utf8'));` +
        `let i=0,half=null;const t=setInterval(()=>{if(half!==null){fs.appendFileSync(f,half);half=null;return;}` +
        `if(i>=c.length){clearInterval(t);return;}const s=c[i++];const h=s.length>>1;fs.appendFileSync(f,s.slice(0,h));half=s.slice(h);},2);`,
    ]);
    const exited = new Promise((resolve) => writer.on('exit', resolve));
    const index = open();
    let scans = 0;
    let sawPartial = false;
    while (writer.exitCode === null) {
      const r = await index.scan();
      sawPartial ||= r.problems.some((p) => p.partialTail);
      scans++;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await exited;
    const final = await index.scan();
    expect(scans).toBeGreaterThan(3);
    expect(final.problems).toEqual([]);
    expect(final.sessions[0]).toMatchObject({ userTurns: 301, firstPrompt: 'prompt 0', lastPrompt: 'prompt 300' });
    // Every byte once, plus at most one re-read half-written line per scan: never from the start.
    const longest = Math.max(...chunks.map((c) => Buffer.byteLength(c)));
    expect(index.bytesReadTotal).toBeLessThanOrEqual(statSync(file).size + (scans + 1) * longest);
    // Half-written lines were met and left for a later scan, not counted as malformed.
    expect(sawPartial).toBe(true);
  });
});
