import { createDb, type Db } from '@bria/core/db';
import { createLogger, type Logger } from '@bria/core/log';
import { ChangeFeed } from '@bria/core/trpc';
import { webEnv } from '../env.ts';

// One pool per server process; dev reloads would otherwise open a new one per edit.
const g = globalThis as typeof globalThis & { __briaWebDb?: Db; __briaWebLog?: Logger; __briaWebChanges?: ChangeFeed };

export function db(): Db {
  g.__briaWebDb ??= createDb(webEnv().DATABASE_URL, { max: 5 });
  return g.__briaWebDb;
}

export function log(): Logger {
  g.__briaWebLog ??= createLogger({ name: 'web', level: webEnv().LOG_LEVEL });
  return g.__briaWebLog;
}

/** One LISTEN connection per server process, shared by every open dashboard tab. */
export function changeFeed(): ChangeFeed {
  g.__briaWebChanges ??= new ChangeFeed(webEnv().DATABASE_URL, (err) => log().warn({ err: err.message }, 'web.changes_listen_error'));
  return g.__briaWebChanges;
}
