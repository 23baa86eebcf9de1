// Start-up and test tooling that touches the file system (migrations folder, Postgres binaries).
// Kept apart from `@bria/core/db` so the dashboard's bundler never traces these paths.
export { migrate, loadMigrations, defaultMigrationsDir } from './migrate.ts';
export { startEmbeddedPostgres, freePort, isPortFree, type RunningPostgres } from './embedded-postgres.ts';
