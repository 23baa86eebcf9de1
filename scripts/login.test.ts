import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { redeemLoginToken } from '../packages/core/src/services/auth/index.ts';
import { fileDatabase } from '../packages/testkit/src/file-database.ts';

/** `npm run login` as the server's owner runs it: the real command against a real database. */
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const { db, tdb } = await fileDatabase();
afterAll(async () => {
  await db.$disconnect();
});

describe('npm run login', () => {
  it('prints a fresh one-time link on the public address that signs in once', async () => {
    const env = { ...process.env, DATABASE_URL: tdb.url, BRIA_PUBLIC_URL: 'https://bria.example.org', LOG_LEVEL: 'silent' };
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/login.ts'], { cwd: root, env, timeout: 60_000 });
    const link = stdout.match(/https:\/\/bria\.example\.org\/login\?token=[A-Za-z0-9_-]+/)?.[0];
    expect(link, stdout).toBeDefined();
    expect(stdout).toContain('valid 15 minutes');
    const token = new URL(link as string).searchParams.get('token') ?? '';
    const web = await redeemLoginToken({ db, token });
    expect(web.secret.length).toBeGreaterThan(20);
    await expect(redeemLoginToken({ db, token })).rejects.toMatchObject({ userMessage: 'login.used' });
  }, 90_000);
});
