import path from 'node:path';
import { startEmbeddedPostgres } from '../packages/core/src/db/embedded-postgres.ts';
import { migrate } from '../packages/core/src/db/migrate.ts';
import { defaultDataDir, parseEnv, zServerEnv } from '../packages/core/src/env.ts';

/**
 * `npm run db:migrate`: apply Bria's pending migrations to DATABASE_URL, or to the embedded
 * database (reused if Bria is running, started for the duration of the command otherwise).
 * `npm start` does the same on every start; this is for a server prepared ahead of time.
 */
const env = parseEnv(zServerEnv);
let url = env.DATABASE_URL;
let stop: (() => Promise<void>) | undefined;
let code = 0;
try {
  if (!url) {
    const pg = await startEmbeddedPostgres({
      dir: path.join(path.resolve(env.BRIA_DATA_DIR ?? defaultDataDir()), 'postgres'),
      port: env.BRIA_PG_PORT,
      log: (l) => console.log(l),
    });
    url = pg.url;
    if (pg.startedHere) stop = () => pg.stop();
  }
  const result = await migrate({ url, log: (l) => console.log(l) });
  console.log(
    result.applied.length === 0
      ? `The database is up to date (${result.alreadyApplied} migration(s) applied earlier).`
      : `Applied ${result.applied.length} migration(s); ${result.alreadyApplied} were applied earlier.`,
  );
} catch (err) {
  console.error(`bria db:migrate: ${(err as Error).message}`);
  code = 1;
} finally {
  await stop?.();
}
process.exit(code);
