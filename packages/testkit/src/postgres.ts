import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres, type RunningPostgres } from '../../core/src/db/embedded-postgres.ts';
import { migrate } from '../../core/src/db/migrate.ts';

/**
 * Test databases on a real PostgreSQL server. The vitest global setup starts one embedded
 * cluster per run and exports its admin URL; each test file gets its own fresh database.
 * Run standalone (no global setup), the first call starts a private cluster.
 */
export const ADMIN_URL_ENV = 'BRIA_TEST_PG_ADMIN_URL';

let own: Promise<RunningPostgres & { dir: string }> | undefined;

export async function startTestCluster(): Promise<RunningPostgres & { dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bria-test-pg-'));
  const running = await startEmbeddedPostgres({ dir, port: await freePort(), database: 'postgres' });
  return {
    ...running,
    dir,
    async stop() {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function adminUrl(): Promise<string> {
  const fromEnv = process.env[ADMIN_URL_ENV];
  if (fromEnv) return fromEnv;
  if (!own) {
    own = startTestCluster();
    const running = await own;
    // Standalone use (a script, a benchmark): the private cluster must not outlive this process.
    process.once('exit', () => {
      try {
        process.kill(running.pid, 'SIGINT');
      } catch {}
      rmSync(running.dir, { recursive: true, force: true });
    });
  }
  return (await own).adminUrl;
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const admin = await adminUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  if (opts.migrate !== false) await migrate({ url: url.toString() });
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * Ends the backends of a database that are LISTENing on `channel` (as a Postgres restart or an
 * administrator would), so a test can check that a listener comes back. Returns how many it ended.
 */
export async function terminateListeners(url: string, channel: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query ilike $1`,
      [`LISTEN %${channel}%`],
    );
    return r.rowCount ?? 0;
  } finally {
    await c.end();
  }
}
