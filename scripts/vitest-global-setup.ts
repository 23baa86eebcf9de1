import { ADMIN_URL_ENV, startTestCluster } from '../packages/testkit/src/postgres.ts';

// One real PostgreSQL cluster for the whole test run; every test file creates its own database.
export default async function setup(): Promise<() => Promise<void>> {
  if (process.env[ADMIN_URL_ENV]) return async () => {};
  const cluster = await startTestCluster();
  process.env[ADMIN_URL_ENV] = cluster.adminUrl;
  return async () => {
    await cluster.stop();
  };
}
