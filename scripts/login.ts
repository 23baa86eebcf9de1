import { parseEnv, zServerEnv } from '../packages/core/src/env.ts';
import { openScriptDatabase } from './launcher/script-database.ts';
import { createLoginLink, LOGIN_LINK_TTL_MS } from '../packages/core/src/services/auth/index.ts';

/**
 * `npm run login`: prints a fresh one-time dashboard login link (valid 15 minutes, single use), for
 * signing in without Telegram when the link `npm start` printed has expired. Run it on the server;
 * it uses DATABASE_URL, or the embedded database (reused if Bria is running, started for the
 * duration of the command otherwise). The link's address is BRIA_PUBLIC_URL, or the dashboard's own.
 */
const env = parseEnv(zServerEnv);
const { db, close } = await openScriptDatabase(env);
let code = 0;
try {
  const baseUrl = env.BRIA_PUBLIC_URL ?? `http://${env.BRIA_HOST === '0.0.0.0' ? 'localhost' : env.BRIA_HOST}:${env.BRIA_WEB_PORT}`;
  const link = await createLoginLink({ db, baseUrl, name: 'owner' });
  console.log(`Open this link to sign in to the dashboard (valid ${LOGIN_LINK_TTL_MS / 60_000} minutes, once):\n${link.url}`);
} catch (err) {
  console.error(`bria login: ${(err as Error).message}`);
  code = 1;
} finally {
  await close();
}
process.exit(code);
