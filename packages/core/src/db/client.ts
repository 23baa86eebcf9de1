import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/client.ts';

export type Db = PrismaClient;

const pools = new WeakMap<object, pg.Pool>();

/**
 * The only place a Prisma client is created. One pool per process. The `pg` pool under the adapter
 * is created here so the hot paths can run named prepared statements on it (`db/repos/prepared.ts`);
 * Prisma ends it on `$disconnect` as it would its own.
 */
export function createDb(url: string, opts: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  // An idle connection that breaks (Postgres restarting) is dropped by the pool, which then emits
  // 'error'; without a listener that would end the whole process. The next query opens a new one
  // and reports its own error if the server is still away.
  pool.on('error', () => {});
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}

/** The `pg` pool under a client made by `createDb`; null for anything else (a transaction's client). */
export function pgPoolOf(db: object): pg.Pool | null {
  const pool = pools.get(db);
  return pool && !pool.ending ? pool : null;
}
