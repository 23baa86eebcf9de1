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
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}

/** The `pg` pool under a client made by `createDb`; null for anything else (a transaction's client). */
export function pgPoolOf(db: object): pg.Pool | null {
  const pool = pools.get(db);
  return pool && !pool.ending ? pool : null;
}
