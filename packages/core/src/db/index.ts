export { createDb, type Db } from './client.ts';
export { migrate, loadMigrations, defaultMigrationsDir } from './migrate.ts';
export { startEmbeddedPostgres, freePort, isPortFree, type RunningPostgres } from './embedded-postgres.ts';
export * from './repos/nodes.ts';
export * from './repos/agent-commands.ts';
export * from './repos/agent-events.ts';
