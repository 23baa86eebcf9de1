import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../testkit/src/postgres.ts';
import { defaultMigrationsDir, loadMigrations, migrate } from './migrate.ts';
import { createHash } from 'node:crypto';

const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const db of dbs) await db.drop();
});

async function rows(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const r = await c.query(
    'select migration_name, checksum, finished_at, applied_steps_count, rolled_back_at from "_prisma_migrations" order by migration_name',
  );
  await c.end();
  return r.rows;
}

describe('migration runner', () => {
  it('applies every migration exactly once when two processes start together', async () => {
    const db = await createTestDatabase({ migrate: false });
    dbs.push(db);
    const results = await Promise.all([migrate({ url: db.url }), migrate({ url: db.url }), migrate({ url: db.url })]);
    const total = loadMigrations().length;
    expect(results.reduce((n, r) => n + r.applied.length, 0)).toBe(total);
    const recorded = await rows(db.url);
    expect(recorded).toHaveLength(total);
    for (const r of recorded) {
      const sql = readFileSync(path.join(defaultMigrationsDir, r.migration_name, 'migration.sql'));
      expect(r.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(r.finished_at).toBeInstanceOf(Date);
      expect(r.applied_steps_count).toBe(1);
    }
    // A second start applies nothing.
    expect((await migrate({ url: db.url })).applied).toEqual([]);
  });

  it('rolls back a failing migration, records it like `prisma migrate resolve --rolled-back`, and retries later', async () => {
    const db = await createTestDatabase({ migrate: false });
    dbs.push(db);
    const dir = mkdtempSync(path.join(tmpdir(), 'bria-mig-'));
    cpSync(defaultMigrationsDir, dir, { recursive: true });
    const bad = path.join(dir, '29991231000000_broken');
    mkdirSync(bad);
    writeFileSync(path.join(bad, 'migration.sql'), 'CREATE TABLE "half_done" (id int);\nSELECT * FROM "no_such_table";\n');
    await expect(migrate({ url: db.url, dir })).rejects.toThrow(/29991231000000_broken failed/);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const leftover = await c.query(`select to_regclass('public.half_done') as t`);
    await c.end();
    expect(leftover.rows[0].t).toBeNull();
    const broken = (await rows(db.url)).find((r) => r.migration_name === '29991231000000_broken');
    expect(broken?.finished_at).toBeNull();
    expect(broken?.rolled_back_at).toBeInstanceOf(Date);
    writeFileSync(path.join(bad, 'migration.sql'), 'CREATE TABLE "half_done" (id int);\n');
    expect((await migrate({ url: db.url, dir })).applied).toEqual(['29991231000000_broken']);
  });
});
