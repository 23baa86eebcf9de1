import { spawn } from 'node:child_process';
import path from 'node:path';
import { startEmbeddedPostgres } from '../packages/core/src/db/embedded-postgres.ts';
import { defaultDataDir, parseEnv, zServerEnv } from '../packages/core/src/env.ts';

/**
 * `npm run db:studio`: Prisma Studio on Bria's database — DATABASE_URL when set, otherwise the
 * embedded server (reused if Bria is running, started for the duration of Studio otherwise).
 */
const env = parseEnv(zServerEnv);
let url = env.DATABASE_URL;
let stop: (() => Promise<void>) | undefined;
if (!url) {
  const dataDir = path.resolve(env.BRIA_DATA_DIR ?? defaultDataDir());
  const pg = await startEmbeddedPostgres({ dir: path.join(dataDir, 'postgres'), port: env.BRIA_PG_PORT });
  url = pg.url;
  if (pg.startedHere) stop = () => pg.stop();
}
const studio = spawn('npx', ['prisma', 'studio', ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, DATABASE_URL: url } });
const finish = async (code: number) => {
  await stop?.();
  process.exit(code);
};
process.on('SIGINT', () => studio.kill('SIGINT'));
studio.on('exit', (code) => void finish(code ?? 0));
