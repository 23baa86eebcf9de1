import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../testkit/src/postgres.ts';
import { createDb, type Db } from '../client.ts';
import { enqueueOutbox, listOutbox } from './outbox.ts';
import { claimOutbox, markOutboxFailed, markOutboxRetry, markOutboxSent } from './outbox-claim.ts';

let tdb: TestDatabase;
let a: Db;
let b: Db;
beforeAll(async () => {
  tdb = await createTestDatabase();
  a = createDb(tdb.url, { max: 4 });
  b = createDb(tdb.url, { max: 4 });
});
afterAll(async () => {
  await a.$disconnect();
  await b.$disconnect();
  await tdb.drop();
});
const sessionId = randomUUID();
const nodeId = randomUUID();
const card = (version: number) => ({ kind: 'card_update' as const, sessionId, nodeId, state: 'Ready', version, active: true });

describe('outbox', () => {
  it("the bot's own kinds in the same table are left alone by listOutbox; the one claim hands out every kind in the chat's order", async () => {
    const now = new Date();
    const s2 = randomUUID();
    await a.outbox.create({
      data: {
        channel: 'mixed',
        dedupeKey: 'bot:1:2:m3:0:resume_status',
        kind: 'resume_status',
        chatId: 1n,
        sessionId: s2,
        payload: { kind: 'resume_status', text: 'Resuming…' },
        nextAttemptAt: now,
        createdAt: now,
      },
    });
    await enqueueOutbox(a, { channel: 'mixed', dedupeKey: 'card:mixed', chatId: 1n, payload: { ...card(1), sessionId: s2 }, now });
    expect((await listOutbox(a, { sessionId: s2 })).map((r) => r.kind)).toEqual(['card_update']);
    // One row of a chat at a time, in id order: the bot's earlier row first, the card only after it is finished.
    const [first, ...rest] = await claimOutbox(a, { channel: 'mixed', limit: 10, leaseMs: 60_000 });
    expect([first?.kind, rest]).toEqual(['resume_status', []]);
    await markOutboxSent(a, first!.id, [7]);
    expect((await claimOutbox(a, { channel: 'mixed', limit: 10, leaseMs: 60_000 })).map((r) => r.kind)).toEqual(['card_update']);
  });

  it('a dedupe key is stored once', async () => {
    const now = new Date();
    expect(await enqueueOutbox(a, { channel: 'dedupe', dedupeKey: 'final:x:1', chatId: 1n, payload: card(1), now })).toBe(true);
    expect(await enqueueOutbox(b, { channel: 'dedupe', dedupeKey: 'final:x:1', chatId: 1n, payload: card(1), now })).toBe(false);
    expect((await listOutbox(a, { sessionId })).filter((r) => r.channel === 'dedupe')).toHaveLength(1);
  });

  it('several claimers never get the same row; rows come out in order', async () => {
    const now = new Date();
    // One chat per row: rows of one chat are handed out one at a time (the test above).
    for (let i = 0; i < 60; i++) await enqueueOutbox(a, { channel: 'tg', dedupeKey: `k${i}`, chatId: BigInt(100 + i), payload: card(i), now });
    const claimed = await Promise.all(Array.from({ length: 6 }, (_, i) => claimOutbox(i % 2 ? a : b, { channel: 'tg', limit: 15, leaseMs: 60_000 })));
    const ids = claimed.flat().map((r) => r.id);
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
    for (const batch of claimed) expect(batch.map((r) => r.id)).toEqual([...batch.map((r) => r.id)].sort((x, y) => (x < y ? -1 : 1)));
    expect(await claimOutbox(a, { channel: 'tg', limit: 10, leaseMs: 60_000 })).toEqual([]);
    for (const r of claimed.flat()) await markOutboxSent(a, r.id, [Number(r.id)]);
    expect((await a.outbox.findMany({ where: { channel: 'tg' } })).every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
  });

  it('an expired lease is claimable again; a retry is scheduled or the row given up', async () => {
    const t0 = new Date('2030-01-01T00:00:00Z');
    await enqueueOutbox(a, { channel: 'lease', dedupeKey: 'lease:1', chatId: 2n, payload: card(1), now: t0 });
    await enqueueOutbox(a, { channel: 'lease', dedupeKey: 'lease:2', chatId: 3n, payload: card(2), now: t0 });
    const [first, second] = await claimOutbox(a, { channel: 'lease', limit: 10, leaseMs: 1000, now: t0 });
    expect(await claimOutbox(b, { channel: 'lease', limit: 10, leaseMs: 1000, now: new Date(t0.getTime() + 999) })).toEqual([]);
    const again = await claimOutbox(b, { channel: 'lease', limit: 10, leaseMs: 1000, now: new Date(t0.getTime() + 1001) });
    expect(again.map((r) => r.id)).toEqual([first?.id, second?.id]);
    expect(again[0]?.attempts).toBe(2);
    await markOutboxRetry(b, again[0]!.id, new Date(t0.getTime() + 5000), 'HTTP 429');
    await markOutboxFailed(b, again[1]!.id, 'chat not found');
    expect(await claimOutbox(a, { channel: 'lease', limit: 10, leaseMs: 1000, now: new Date(t0.getTime() + 4000) })).toEqual([]);
    const retried = await claimOutbox(a, { channel: 'lease', limit: 10, leaseMs: 1000, now: new Date(t0.getTime() + 5000) });
    expect(retried.map((r) => r.id)).toEqual([first?.id]);
    expect((await a.outbox.findUniqueOrThrow({ where: { id: second!.id } })).status).toBe('failed');
  });

  it('refuses a payload that does not match its schema', async () => {
    await expect(
      enqueueOutbox(a, { channel: 'x', dedupeKey: 'bad', chatId: null, payload: { kind: 'final', sessionId } as never, now: new Date() }),
    ).rejects.toThrow();
  });
});
