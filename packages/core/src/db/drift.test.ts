import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../testkit/src/postgres.ts';
import { isEmptyMigration, prismaDiff } from './prisma-diff.ts';
import { schemaSnapshot } from './schema-snapshot.ts';
import { defaultMigrationsDir } from './migrate.ts';

const prismaDir = path.resolve(defaultMigrationsDir, '..');
const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const db of dbs) await db.drop();
});

describe('schema.prisma and the migrations', () => {
  it('describe the same database (no drift)', async () => {
    const fromMigrations = await createTestDatabase();
    const fromSchema = await createTestDatabase({ migrate: false });
    dbs.push(fromMigrations, fromSchema);
    const sql = await prismaDiff({ from: 'empty', to: path.join(prismaDir, 'schema.prisma'), scratchUrl: fromSchema.url });
    expect(isEmptyMigration(sql)).toBe(false);
    const c = new pg.Client({ connectionString: fromSchema.url });
    await c.connect();
    await c.query(sql);
    await c.end();
    const a = await schemaSnapshot(fromMigrations.url);
    const b = await schemaSnapshot(fromSchema.url);
    expect(a.split('\n').length).toBeGreaterThan(50);
    expect(a).toBe(b);
  });

  it('migrated-schema.prisma (the base for the next migration) matches schema.prisma', async () => {
    const scratch = await createTestDatabase({ migrate: false });
    dbs.push(scratch);
    const sql = await prismaDiff({ from: path.join(prismaDir, 'migrated-schema.prisma'), to: path.join(prismaDir, 'schema.prisma'), scratchUrl: scratch.url });
    expect(isEmptyMigration(sql), `pending changes not in a migration:\n${sql}`).toBe(true);
  });

  it('the snapshot notices a real difference', async () => {
    const a = await createTestDatabase();
    const b = await createTestDatabase();
    dbs.push(a, b);
    const c = new pg.Client({ connectionString: b.url });
    await c.connect();
    await c.query('alter table "Node" add column "extra" text');
    await c.end();
    expect(await schemaSnapshot(a.url)).not.toBe(await schemaSnapshot(b.url));
  });
});
