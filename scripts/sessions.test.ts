import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createNodeWithToken } from '../packages/core/src/db/repos/nodes.ts';
import { fileDatabase } from '../packages/testkit/src/file-database.ts';

/** `npm run sessions -- --json` as a script sees it: the real command against a real database. */
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const { db, tdb } = await fileDatabase();
afterAll(async () => {
  await db.$disconnect();
});

async function sessions(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: tdb.url, LOG_LEVEL: 'silent' };
  return run(process.execPath, ['--import', 'tsx', 'scripts/sessions.ts', ...args], { cwd: root, env, timeout: 60_000 });
}

describe('npm run sessions', () => {
  it('--json lists open sessions with state, node, executor, native id, folder, activity, tokens and context %', async () => {
    // A retried attempt starts clean.
    await db.session.deleteMany({});
    const { nodeId } = await createNodeWithToken(db, { name: 'laptop' });
    const activity = {
      kind: 'command',
      toolName: 'Bash',
      subject: 'npm test',
      status: 'running',
      added: null,
      removed: null,
      reads: 0,
      steps: 4,
      nativeTurnId: 't1',
      turnStartedAt: '2026-12-04T10:00:00.000Z',
      at: '2026-12-04T10:02:00.000Z',
    };
    await db.session.create({
      data: {
        id: '20000000-0000-4000-8000-000000000001',
        nodeId,
        executor: 'codex',
        folder: '/home/ada/app',
        nativeSessionId: '01a2368c-d855-7312-9f0e-4ffe2a850ce0',
        state: 'Running',
        activity,
        usage: { inputTokens: 51_680, outputTokens: 900 },
        contextUsed: 51_680,
        contextWindow: 258_400,
        contextWindowSource: 'journal',
        compactions: 2,
      },
    });
    await db.session.create({
      data: {
        id: '20000000-0000-4000-8000-000000000002',
        nodeId,
        executor: 'claude',
        folder: '/home/ada/old',
        state: 'Archived',
        archivedAt: new Date(),
        activity,
      },
    });

    const { stdout } = await sessions('--json');
    const items = JSON.parse(stdout) as Record<string, unknown>[];
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      id: '20000000-0000-4000-8000-000000000001',
      state: 'Running',
      node: { id: nodeId, name: 'laptop' },
      executor: 'codex',
      nativeSessionId: '01a2368c-d855-7312-9f0e-4ffe2a850ce0',
      folder: '/home/ada/app',
      activity: { kind: 'command', subject: 'npm test', steps: 4 },
      tokens: { input: 51_680, output: 900 },
      context: { usedTokens: 51_680, windowTokens: 258_400, percent: 20, compactions: 2, windowSource: 'journal' },
    });
    const all = JSON.parse((await sessions('--json', '--all')).stdout) as { state: string; activity: unknown }[];
    expect(all.map((s) => s.state).sort()).toEqual(['Archived', 'Running']);
    // A closed session shows no activity (it ran in a turn that is over).
    expect(all.find((s) => s.state === 'Archived')?.activity).toBeNull();
  }, 120_000);

  it('refuses an unknown option with the usage and exit code 2', async () => {
    const e = await sessions('--jsno').then(
      () => null,
      (x: unknown) => x as { code: number; stderr: string },
    );
    expect(e?.code).toBe(2);
    expect(e?.stderr).toContain('Usage: npm run sessions');
  }, 60_000);
});
