import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/**
 * Applies prisma/migrations/<ts>_<name>/migration.sql in order, keeping Prisma's own
 * `_prisma_migrations` bookkeeping exactly (same table, checksum = sha256 of the file, same
 * advisory lock key), so `prisma migrate deploy/status` on a machine with Prisma's native
 * engine agrees with what Bria applied.
 */
export const PRISMA_ADVISORY_LOCK_KEY = 72707369;

export const defaultMigrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../prisma/migrations');

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}
export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

export function loadMigrations(dir = defaultMigrationsDir): Migration[] {
  if (!existsSync(dir)) throw new Error(`Migrations folder not found: ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, 'migration.sql')))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export async function migrate(opts: { url: string; dir?: string; log?: (line: string) => void }): Promise<MigrateResult> {
  const migrations = loadMigrations(opts.dir);
  const log = opts.log ?? (() => {});
  const client = new pg.Client({ connectionString: opts.url });
  await client.connect();
  try {
    // Session-level lock, as Prisma takes it: a second process waits here and then finds
    // every migration already recorded.
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
    await client.query(BOOKKEEPING);
    const rows = (await client.query<AppliedRow>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at'))
      .rows;
    const failed = rows.find((r) => r.finished_at === null && r.rolled_back_at === null);
    if (failed) {
      throw new Error(`Migration ${failed.migration_name} failed earlier and was not rolled back; fix the database by hand before starting Bria.`);
    }
    const done = new Map(rows.filter((r) => r.finished_at && !r.rolled_back_at).map((r) => [r.migration_name, r.checksum]));
    const applied: string[] = [];
    for (const m of migrations) {
      const previous = done.get(m.name);
      if (previous !== undefined) {
        if (previous !== m.checksum) log(`warning: migration ${m.name} was changed after it was applied (checksum differs).`);
        continue;
      }
      const id = randomUUID();
      await client.query('INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)', [
        id,
        m.checksum,
        m.name,
      ]);
      try {
        await client.query('BEGIN');
        await client.query(m.sql);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        // The transaction rolled everything back, so record it as Prisma's `migrate resolve
        // --rolled-back` would: the next start may try again once the cause is fixed.
        await client.query('UPDATE "_prisma_migrations" SET logs = $2, rolled_back_at = now() WHERE id = $1', [id, String((err as Error).message)]);
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`);
      }
      await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
      applied.push(m.name);
      log(`applied migration ${m.name}`);
    }
    return { applied, alreadyApplied: migrations.length - applied.length };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}
