import { describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded-postgres.ts';
import { createDb } from '../../db/client.ts';
import { finalSaveCause } from './final-save.ts';
import { fileDatabase } from '../../../../testkit/src/file-database.ts';

// The causes are derived from errors that real Postgres and Prisma raise (not hand-made shapes),
// so a change in how Prisma wraps driver errors shows up here.
const { db } = await fileDatabase({ max: 2 });

const failure = async (fn: () => Promise<unknown>): Promise<unknown> => {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the operation to fail');
};
const SAFE = /^[a-z -]{5,40}$/;

describe('finalSaveCause', () => {
  it('a database that cannot be reached → "database unavailable"', async () => {
    const gone = createDb(`postgresql://nobody@127.0.0.1:${await freePort()}/none`, { max: 1 });
    const err = await failure(() => gone.message.updateMany({ where: { id: '00000000-0000-0000-0000-000000000000' }, data: { finalText: 'x' } }));
    await gone.$disconnect().catch(() => {});
    expect(finalSaveCause(err)).toBe('database unavailable');
  });

  it('a statement timeout → "database timed out"; a read-only transaction → "database is read-only"', async () => {
    const timedOut = await failure(() =>
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('set local statement_timeout = 10');
        await tx.$executeRawUnsafe('select pg_sleep(1)');
      }),
    );
    expect(finalSaveCause(timedOut)).toBe('database timed out');
    const readOnly = await failure(() =>
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('set transaction read only');
        await tx.message.updateMany({ where: { id: '00000000-0000-0000-0000-000000000000' }, data: { finalText: 'x' } });
      }),
    );
    expect(finalSaveCause(readOnly)).toBe('database is read-only');
  });

  it('disk full (SQLSTATE 53100 / ENOSPC) and anything unknown get fixed phrases, never the error text', () => {
    const diskFull = Object.assign(new Error('could not extend file "base/16384/2619": No space left on device'), { code: '53100' });
    expect(finalSaveCause(diskFull)).toBe('server disk full');
    expect(finalSaveCause(Object.assign(new Error('out of memory'), { code: '53200' }))).toBe('database out of resources');
    const odd = new Error('weird failure at /home/me/secret/path with text SECRET');
    expect(finalSaveCause(odd)).toBe('database write failed');
    expect(finalSaveCause('string thrown')).toBe('database write failed');
    for (const e of [diskFull, odd, null, undefined, 42]) expect(finalSaveCause(e)).toMatch(SAFE);
  });
});
