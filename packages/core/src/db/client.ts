import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client.ts';

export type Db = PrismaClient;

/** The only place a Prisma client is created. One pool per process. */
export function createDb(url: string, opts: { max?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: url, max: opts.max ?? 10 });
  return new PrismaClient({ adapter });
}
