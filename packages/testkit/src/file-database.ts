import { afterAll } from 'vitest';
import { createDb, type Db } from '../../core/src/db/client.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';

/**
 * A fresh, migrated database on the test cluster for one test file, with a client, closed and
 * dropped after the file's tests: `const { db, tdb } = await fileDatabase();` at the top of the file.
 */
export async function fileDatabase(o: { max?: number } = {}): Promise<{ tdb: TestDatabase; db: Db }> {
  const tdb = await createTestDatabase();
  const db = createDb(tdb.url, o);
  afterAll(async () => {
    await db.$disconnect();
    await tdb.drop();
  });
  return { tdb, db };
}
