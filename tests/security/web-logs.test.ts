import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '@bria/core/db';
import { createLoginLink } from '@bria/core/trpc';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { leaks } from './support.ts';

/** The dashboard's login route logs at info level to stdout; the link's token and the session cookie never appear there. */
let tdb: TestDatabase;
let db: Db;
beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url);
});
afterAll(async () => {
  await db?.$disconnect();
  await tdb?.drop();
});

describe('dashboard logs', () => {
  it('a login (and a refused second use of the link) logs the user id and the reason, never the token or the cookie', async () => {
    const link = await createLoginLink({ db, baseUrl: 'http://127.0.0.1:3000' });
    const token = new URL(link.url).searchParams.get('token') ?? '';
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./web-login-child.ts', import.meta.url)), token], {
      input: '',
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', DATABASE_URL: tdb.url, LOG_LEVEL: 'info', NODE_ENV: 'production' },
    });
    expect(child.status, child.stderr).toBe(0);
    const result = JSON.parse(child.stderr.trim().split('\n').at(-1) ?? '{}') as { first: number; firstCookie: string; second: string };
    expect(result.first).toBe(303);
    expect(result.second).toBe('/signin?reason=login.used');
    const cookie = /bria_session=([^;]+)/.exec(result.firstCookie)?.[1] ?? '';
    expect(cookie.length).toBeGreaterThan(20);
    expect(child.stdout).toContain('web.login');
    expect(child.stdout).toContain('web.login_refused');
    expect(leaks(child.stdout, { token, cookie, dbPassword: new URL(tdb.url).password, dbUrl: tdb.url })).toEqual([]);
  });
});
