import path from 'node:path';
import { createDb, type Db } from '../../packages/core/src/db/client.ts';
import { startEmbeddedPostgres } from '../../packages/core/src/db/embedded-postgres.ts';
import { migrate } from '../../packages/core/src/db/migrate.ts';
import { defaultDataDir, type ServerEnv } from '../../packages/core/src/env.ts';

/**
 * Bria's database for a one-shot command (`npm run sessions`, `npm run login`): DATABASE_URL, or the
 * embedded database (reused if Bria is running, started for the command's duration otherwise),
 * migrated. `close` disconnects and stops a database the command started.
 */
export async function openScriptDatabase(env: ServerEnv): Promise<{ db: Db; close: () => Promise<void> }> {
  let url = env.DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  if (!url) {
    const pg = await startEmbeddedPostgres({ dir: path.join(path.resolve(env.BRIA_DATA_DIR ?? defaultDataDir()), 'postgres'), port: env.BRIA_PG_PORT });
    url = pg.url;
    if (pg.startedHere) stop = () => pg.stop();
  }
  await migrate({ url });
  const db = createDb(url, { max: 1 });
  return {
    db,
    close: async () => {
      await db.$disconnect();
      await stop?.();
    },
  };
}
