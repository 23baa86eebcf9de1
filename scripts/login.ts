import path from 'node:path';
import { createDb } from '../packages/core/src/db/client.ts';
import { startEmbeddedPostgres } from '../packages/core/src/db/embedded-postgres.ts';
import { migrate } from '../packages/core/src/db/migrate.ts';
import { defaultDataDir, parseEnv, zServerEnv } from '../packages/core/src/env.ts';
import { createLoginLink, LOGIN_LINK_TTL_MS } from '../packages/core/src/services/auth/index.ts';

/**
 * `npm run login`: prints a fresh one-time dashboard login link (valid 15 minutes, single use), for
 * signing in without Telegram when the link `npm start` printed has expired. Run it on the server;
 * it uses DATABASE_URL, or the embedded database (reused if Bria is running, started for the
 * duration of the command otherwise). The link's address is BRIA_PUBLIC_URL, or the dashboard's own.
 */
const env = parseEnv(zServerEnv);
let url = env.DATABASE_URL;
let stop: (() => Promise<void>) | undefined;
if (!url) {
  const pg = await startEmbeddedPostgres({ dir: path.join(path.resolve(env.BRIA_DATA_DIR ?? defaultDataDir()), 'postgres'), port: env.BRIA_PG_PORT });
  url = pg.url;
  if (pg.startedHere) stop = () => pg.stop();
}
await migrate({ url });
const db = createDb(url, { max: 1 });
let code = 0;
try {
  const baseUrl = env.BRIA_PUBLIC_URL ?? `http://${env.BRIA_HOST === '0.0.0.0' ? 'localhost' : env.BRIA_HOST}:${env.BRIA_WEB_PORT}`;
  const link = await createLoginLink({ db, baseUrl, name: 'owner' });
  console.log(`Open this link to sign in to the dashboard (valid ${LOGIN_LINK_TTL_MS / 60_000} minutes, once):\n${link.url}`);
} catch (err) {
  console.error(`bria login: ${(err as Error).message}`);
  code = 1;
} finally {
  await db.$disconnect();
  await stop?.();
}
process.exit(code);
