import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, terminateListeners, type TestDatabase } from '../../../testkit/src/postgres.ts';
import { freePort } from './embedded-postgres.ts';
import { PgListener } from './pg-listener.ts';

let tdb: TestDatabase;
let admin: pg.Client;
beforeAll(async () => {
  tdb = await createTestDatabase({ migrate: false });
  admin = new pg.Client({ connectionString: tdb.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await tdb.drop();
});

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('PgListener', () => {
  it('re-opens a terminated connection and receives the NOTIFYs sent after it', async () => {
    const got: string[] = [];
    const errors: string[] = [];
    let back = deferred<boolean>();
    const listener = new PgListener({
      databaseUrl: tdb.url,
      channels: ['bria_test_a', 'bria_test_b'],
      onNotify: (channel, payload) => got.push(`${channel}:${payload}`),
      onListening: (reconnected) => back.resolve(reconnected),
      onError: (err) => errors.push(err.message),
    });
    try {
      await listener.start();
      expect(await back.promise).toBe(false);
      await admin.query(`select pg_notify('bria_test_a', 'before')`);
      await expect.poll(() => got).toEqual(['bria_test_a:before']);

      back = deferred<boolean>();
      expect(await terminateListeners(tdb.url, 'bria_test_')).toBe(1);
      expect(await back.promise).toBe(true);
      expect(errors.length).toBeGreaterThan(0);
      await listener.ready();
      await admin.query(`select pg_notify('bria_test_a', 'after'), pg_notify('bria_test_b', 'too')`);
      await expect.poll(() => got, { timeout: 10_000 }).toEqual(['bria_test_a:before', 'bria_test_a:after', 'bria_test_b:too']);
    } finally {
      await listener.stop();
    }
  });

  it('rejects at start when Postgres is unreachable, and retries nothing', async () => {
    const errors: string[] = [];
    const url = `postgresql://postgres@127.0.0.1:${await freePort()}/none`;
    const listener = new PgListener({ databaseUrl: url, channels: ['bria_test_a'], onNotify: () => {}, onError: (e) => errors.push(e.message) });
    await expect(listener.start()).rejects.toThrow();
    await listener.ready();
    expect(errors).toEqual([]);
  });

  it('with retryFromStart keeps trying until Postgres answers', async () => {
    const errors: string[] = [];
    const url = `postgresql://postgres@127.0.0.1:${await freePort()}/none`;
    const listener = new PgListener({
      databaseUrl: url,
      channels: ['bria_test_a'],
      onNotify: () => {},
      onError: (e) => errors.push(e.message),
      retryFromStart: true,
    });
    try {
      await listener.start();
      // The first failure and at least one retry (after 250 ms) are reported.
      await expect.poll(() => errors.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    } finally {
      await listener.stop();
    }
  });
});
