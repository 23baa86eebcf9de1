import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startEmbeddedPostgres } from '../packages/core/src/db/embedded-postgres.ts';
import { isEmptyMigration, prismaDiff } from '../packages/core/src/db/prisma-diff.ts';

/**
 * `npm run db:new-migration -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql
 * with the SQL that takes the database from prisma/migrated-schema.prisma (the schema as of the
 * newest migration) to prisma/schema.prisma, offline, then updates migrated-schema.prisma.
 * Review the SQL (data moves, defaults for new NOT NULL columns) before committing it; the drift
 * test then proves the migrations and schema.prisma agree.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const name = (process.argv[2] ?? '').trim();
if (!/^[a-z0-9_]{3,60}$/.test(name)) {
  console.error('Usage: npm run db:new-migration -- <name>   (lowercase letters, digits and _; e.g. add_session_notes)');
  process.exit(2);
}
const prismaDir = path.join(root, 'prisma');
const dir = mkdtempSync(path.join(tmpdir(), 'bria-diff-pg-'));
const pg = await startEmbeddedPostgres({ dir, port: await freePort(), database: 'scratch' });
try {
  const sql = await prismaDiff({ from: path.join(prismaDir, 'migrated-schema.prisma'), to: path.join(prismaDir, 'schema.prisma'), scratchUrl: pg.url });
  if (isEmptyMigration(sql)) {
    console.log('schema.prisma has no changes since the last migration; nothing written.');
  } else {
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const target = path.join(prismaDir, 'migrations', `${stamp}_${name}`);
    mkdirSync(target, { recursive: true });
    writeFileSync(path.join(target, 'migration.sql'), sql);
    const header = readFileSync(path.join(prismaDir, 'migrated-schema.prisma'), 'utf8').split('\n')[0];
    copyFileSync(path.join(prismaDir, 'schema.prisma'), path.join(prismaDir, 'migrated-schema.prisma'));
    const body = readFileSync(path.join(prismaDir, 'migrated-schema.prisma'), 'utf8');
    writeFileSync(path.join(prismaDir, 'migrated-schema.prisma'), `${header}\n${body}`);
    console.log(`Wrote ${path.relative(root, target)}/migration.sql:\n\n${sql}`);
  }
} finally {
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
