import { createDb, type Db } from '../db/client.ts';

/**
 * The database handle a front end holds only to pass to services: it opens it at start and closes
 * it at exit, and never queries it itself (the bot; the dashboard goes through tRPC).
 */
export { createDb, type Db };

/** Closes the handle's connections (at process exit). */
export async function closeDb(db: Db): Promise<void> {
  await db.$disconnect();
}
