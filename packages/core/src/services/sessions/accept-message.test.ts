import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../../../../testkit/src/postgres.ts';
import { createDb, type Db } from '../../db/client.ts';
import { createNodeWithToken } from '../../db/repos/nodes.ts';
import { acceptMessage } from './accept-message.ts';
import { createSession } from './create-session.ts';

/** Small seeded PRNG (mulberry32) so a failing interleaving can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let tdb: TestDatabase;
let dbA: Db;
let dbB: Db;
let nodeId: string;
const log = pino({ level: 'silent' });
beforeAll(async () => {
  tdb = await createTestDatabase();
  dbA = createDb(tdb.url, { max: 4 });
  dbB = createDb(tdb.url, { max: 4 });
  nodeId = (await createNodeWithToken(dbA, { name: 'n' })).nodeId;
  await dbA.node.update({ where: { id: nodeId }, data: { online: true } });
});
afterAll(async () => {
  await dbA.$disconnect();
  await dbB.$disconnect();
  await tdb.drop();
});

describe('acceptMessage under concurrency', () => {
  for (const seed of [1, 7, 42]) {
    it(`two connections, repeated source keys: per-session order kept, never duplicated (seed ${seed})`, async () => {
      const rnd = prng(seed);
      const sessions = await Promise.all([0, 1, 2].map(() => createSession({ db: dbA, log }, { nodeId, executor: 'claude', folder: '/w' })));
      // Each session gets a sequence of logical messages; each is submitted 1-3 times, on either connection.
      const plan: { sessionId: string; key: string; n: number }[] = [];
      for (const s of sessions) for (let n = 0; n < 15; n++) plan.push({ sessionId: s.id, key: `${seed}:${s.id}:${n}`, n });
      const submissions = plan.flatMap((p) => Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => ({ ...p, db: rnd() < 0.5 ? dbA : dbB })));
      const results = await Promise.all(
        submissions.map(async (sub, i) => {
          await new Promise((r) => setTimeout(r, Math.floor(rnd() * 5) + (i % 3)));
          return acceptMessage({ db: sub.db, log }, { sessionId: sub.sessionId, text: `m${sub.n}`, source: 'telegram', sourceKey: sub.key });
        }),
      );
      for (const s of sessions) {
        const rows = await dbA.message.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' }, select: { seq: true, sourceKey: true, text: true } });
        expect(rows).toHaveLength(15);
        expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
        expect(new Set(rows.map((r) => r.sourceKey)).size).toBe(15);
      }
      // Every submission of one key got the same stored message back.
      const byKey = new Map<string, Set<string>>();
      for (const [i, sub] of submissions.entries()) byKey.set(sub.key, (byKey.get(sub.key) ?? new Set()).add(results[i]?.message.id ?? ''));
      for (const ids of byKey.values()) expect(ids.size).toBe(1);
    });
  }

  it('keeps arrival order for sequential submissions from alternating connections', async () => {
    const s = await createSession({ db: dbA, log }, { nodeId, executor: 'claude', folder: '/w' });
    for (let i = 0; i < 20; i++) await acceptMessage({ db: i % 2 ? dbA : dbB, log }, { sessionId: s.id, text: `t${i}`, source: 'web' });
    const rows = await dbA.message.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' }, select: { text: true } });
    expect(rows.map((r) => r.text)).toEqual(Array.from({ length: 20 }, (_, i) => `t${i}`));
  });

  it('a gate decided on an older read never stores: any gate field changed underneath (with or without a version bump) is seen', async () => {
    const s = await createSession({ db: dbA, log }, { nodeId, executor: 'claude', folder: '/w' });
    await acceptMessage({ db: dbA, log }, { sessionId: s.id, text: 'first', source: 'web' });
    // Changed without a version bump (a patch-style write): lifetime expired.
    await dbB.session.update({ where: { id: s.id }, data: { lifetimeExpired: true } });
    await expect(acceptMessage({ db: dbA, log }, { sessionId: s.id, text: 'after expiry', source: 'web' })).rejects.toMatchObject({ code: 'LIFETIME_EXPIRED' });
    // A state change with a version bump: the session is archived.
    const row = await dbB.session.findUniqueOrThrow({ where: { id: s.id }, select: { version: true } });
    await dbB.session.update({ where: { id: s.id }, data: { lifetimeExpired: false, state: 'Archived', version: row.version + 1 } });
    await expect(acceptMessage({ db: dbA, log }, { sessionId: s.id, text: 'after archive', source: 'web' })).rejects.toMatchObject({
      code: expect.any(String),
    });
    // Back to Starting (takes input): accepted again, on the fresh fields.
    await dbB.session.update({ where: { id: s.id }, data: { state: 'Starting', version: row.version + 2 } });
    await acceptMessage({ db: dbA, log }, { sessionId: s.id, text: 'again', source: 'web' });
    const rows = await dbA.message.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' }, select: { text: true, seq: true } });
    expect(rows).toEqual([
      { text: 'first', seq: 1 },
      { text: 'again', seq: 2 },
    ]);
  });
});

describe('acceptMessage refusals of the input itself', () => {
  it('stay INVALID_INPUT and say which rule the text broke, so a front end never reads the message text', async () => {
    const s = await createSession({ db: dbA, log }, { nodeId, executor: 'claude', folder: '/refusals' });
    const refused = (text: string) =>
      acceptMessage({ db: dbA, log }, { sessionId: s.id, text, source: 'telegram' }).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(await refused('bell \u0007 here')).toMatchObject({ code: 'INVALID_INPUT', reason: 'control_characters' });
    expect(await refused('x'.repeat(200_001))).toMatchObject({ code: 'INVALID_INPUT', reason: 'too_long' });
    expect(await refused('')).toMatchObject({ code: 'INVALID_INPUT', reason: 'empty' });
    expect(await refused('/help me')).toMatchObject({ code: 'INVALID_INPUT', reason: 'cli_text', userMessage: 'msg.refusedCliCommand' });
    expect(await dbA.message.count({ where: { sessionId: s.id } })).toBe(0);
  });
});
