import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeLines, writeClaudeSession } from '../discovery/synthetic-store.ts';
import { ArchiveError, archiveJournal, restoreJournal } from './archive-journal.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bria-archive-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const SID = '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const turns = Array.from({ length: 40 }, (_, i) => ({
  prompt: `p${i}`,
  reply: `r${i}`,
  at: new Date(Date.UTC(2026, 11, 1, 10, i)).toISOString(),
  toolBytes: 60_000,
}));
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

async function archived() {
  const file = writeClaudeSession(join(root, '.claude'), { sessionId: SID, cwd: '/w', turns });
  const dataDir = join(root, 'bria-data');
  const copy = await archiveJournal({ file, executor: 'claude', nativeId: SID, dataDir });
  return { file, dataDir, copy };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ArchiveError) return error.code;
    throw error;
  }
  return 'resolved';
}

describe('journal archive', () => {
  it('copies the journal into the data folder with its size and sha256, leaving no temp file', async () => {
    const { file, dataDir, copy } = await archived();
    expect(copy.path).toBe(join(dataDir, 'journals', 'claude', `${SID}.jsonl`));
    expect(copy.sizeBytes).toBe(statSync(file).size);
    expect(copy.sizeBytes).toBeGreaterThan(2_000_000);
    expect(copy.sha256).toBe(sha(file));
    expect(readFileSync(copy.path).equals(readFileSync(file))).toBe(true);
    expect(readdirSync(join(dataDir, 'journals', 'claude'))).toEqual([`${SID}.jsonl`]);
  });

  it('re-archiving a resumed session replaces the copy', async () => {
    const { file, dataDir } = await archived();
    writeFileSync(file, `${claudeLines({ sessionId: SID, cwd: '/w', turns: turns.slice(0, 2) }).join('\n')}\n`, { flag: 'a' });
    const again = await archiveJournal({ file, executor: 'claude', nativeId: SID, dataDir });
    expect(again.sha256).toBe(sha(file));
  });

  it('restores a lost journal, verified, and is a no-op when the same file is already there', async () => {
    const { file, copy } = await archived();
    rmSync(join(file, '..'), { recursive: true });
    const result = await restoreJournal({ archived: copy.path, targetPath: file, sha256: copy.sha256 });
    expect(result).toEqual({ restored: true, targetPath: file });
    expect(sha(file)).toBe(copy.sha256);
    expect(await restoreJournal({ archived: copy.path, targetPath: file, sha256: copy.sha256 })).toEqual({ restored: false, targetPath: file });
  });

  it('refuses to overwrite a different journal and to restore a damaged archive', async () => {
    const { file, copy } = await archived();
    writeFileSync(file, '{"type":"mode","mode":"normal"}\n', { flag: 'a' });
    const before = sha(file);
    expect(await refusal(restoreJournal({ archived: copy.path, targetPath: file, sha256: copy.sha256 }))).toBe('target_exists');
    expect(sha(file)).toBe(before);

    rmSync(file);
    writeFileSync(copy.path, 'x', { flag: 'a' });
    expect(await refusal(restoreJournal({ archived: copy.path, targetPath: file, sha256: copy.sha256 }))).toBe('checksum_mismatch');
    expect(existsSync(file)).toBe(false);
  });

  it('rejects ids that would escape the archive folder', async () => {
    const dataDir = join(root, 'bria-data');
    for (const nativeId of ['../../etc/passwd', 'a/b', '..', '']) {
      expect(await refusal(archiveJournal({ file: '/etc/hostname', executor: 'claude', nativeId, dataDir }))).toBe('invalid_id');
    }
    expect(existsSync(dataDir)).toBe(false);
  });
});
