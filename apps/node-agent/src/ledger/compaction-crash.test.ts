import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from './ledger.ts';

// A crash (SIGKILL, no goodbye) at each step of a ledger rewrite leaves a valid ledger that still
// holds everything the guarantees need; the next start removes the leftover temp file.
const DAY = 24 * 3600_000;
const child = fileURLToPath(new URL('./compaction-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../../../../', import.meta.url));

function runChild(dir: string, now: number, crash: string, ...extra: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', child, dir, String(now), ...extra], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, BRIA_AGENT_TEST_CRASH: crash },
    timeout: 30_000,
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** 300 old done commands (answers acked), 1 old done with its answer unacked, 1 unfinished, 5 recent. */
function buildLedger(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'bria-ledger-crash-'));
  dirs.push(dir);
  const l = new Ledger(dir, () => 'instance', { unchecked: true, now: () => 0 });
  const run = (id: string, at: number) => {
    l.recordCommand({ id, command: 'probe', receivedAt: at, status: 'received' });
    l.appendEvent({ at, event: 'command_result', commandId: id, payload: { ok: true } });
    l.recordCommand({ id, command: 'probe', receivedAt: at, status: 'done', result: { ok: true }, doneAt: at });
  };
  for (let i = 0; i < 300; i++) run(`old-${i}`, i);
  l.ack(l.lastSeq);
  run('old-unacked', 400);
  l.recordCommand({ id: 'unfinished', command: 'deliver', receivedAt: 500, status: 'received', sessionId: 's', messageId: 'm', generation: 1 });
  for (let i = 0; i < 5; i++) run(`recent-${i}`, 29 * DAY + i);
  return dir;
}

function mustStay(l: Ledger): void {
  expect(l.command('old-unacked')?.status).toBe('done');
  expect(l.unfinishedCommands().map((c) => c.id)).toEqual(['unfinished']);
  expect(l.command('unfinished')).toMatchObject({ sessionId: 's', messageId: 'm', generation: 1 });
  for (let i = 0; i < 5; i++) expect(l.command(`recent-${i}`)?.status).toBe('done');
  expect(l.unacked().map((e) => e.commandId)).toEqual(['old-unacked', 'recent-0', 'recent-1', 'recent-2', 'recent-3', 'recent-4']);
  expect(l.instanceId).toBe('instance');
}

const retention = { keepDoneMs: 7 * DAY, keepLastDone: 5 }; // as in compaction-child.ts

describe('ledger compaction under SIGKILL', () => {
  for (const point of ['tmp-partial', 'tmp-synced', 'renamed'] as const) {
    it(`commands.jsonl: a crash at ${point} leaves a valid ledger with everything that must stay`, () => {
      const dir = buildLedger();
      const r = runChild(dir, 30 * DAY, `ledger:commands:${point}`);
      expect(r.signal, r.stderr).toBe('SIGKILL');
      expect(readdirSync(dir).some((f) => f.includes('.tmp-'))).toBe(point !== 'renamed');
      // What remains, read without compacting.
      const raw = new Ledger(dir, () => 'other', { unchecked: true, retention: false });
      mustStay(raw);
      // Before the rename the old file is intact; after it, the new one is complete.
      expect(raw.command('old-0')?.status).toBe(point === 'renamed' ? undefined : 'done');
      // The next start finishes the job and removes the temp file.
      const next = new Ledger(dir, () => 'other', { unchecked: true, now: () => 30 * DAY, retention });
      mustStay(next);
      expect(next.command('old-0')).toBeUndefined();
      expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
      expect(readFileSync(path.join(dir, 'commands.jsonl'), 'utf8').trim().split('\n')).toHaveLength(7);
    });
  }

  for (const point of ['tmp-partial', 'tmp-synced', 'renamed'] as const) {
    it(`events.jsonl: a crash at ${point} of the rewrite after an ack keeps every unacknowledged event`, () => {
      const dir = buildLedger();
      // Compacted once (no crash), then an ack of the first two unacked answers is cut short.
      expect(runChild(dir, 30 * DAY, 'none').status).toBe(0);
      const before = new Ledger(dir, () => 'x', { unchecked: true, retention: false }).lastSeq;
      const r = runChild(dir, 30 * DAY, `ledger:events:${point}`, 'ack', String(before - 4));
      expect(r.signal, r.stderr).toBe('SIGKILL');
      const raw = new Ledger(dir, () => 'other', { unchecked: true, retention: false });
      expect(raw.ackedUpTo).toBe(before - 4);
      expect(raw.unacked().map((e) => e.commandId)).toEqual(['recent-1', 'recent-2', 'recent-3', 'recent-4']);
      expect(raw.lastSeq).toBe(before);
      expect(raw.appendEvent({ at: 1, event: 'e', payload: {} })?.seq).toBe(before + 1);
      expect(existsSync(path.join(dir, 'state.json'))).toBe(true);
    });
  }
});
