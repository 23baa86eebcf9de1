import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createNodeWithToken } from '../db/repos/nodes.ts';
import { listDeadLetters } from '../db/repos/dead-letters.ts';
import { createLogger } from '../log.ts';
import { waitUntil } from '../../../testkit/src/wait.ts';
import { fileDatabase } from '../../../testkit/src/file-database.ts';
import { EVENT_REFUSED, MAX_FRAME_BYTES, PROTOCOL_VERSION, splitEvent, type HubToAgent } from '../protocol/index.ts';
import { Hub } from './server.ts';

/**
 * Issue 30: a frame the hub cannot accept is recorded (a dead letter with node, reason, a bounded
 * excerpt, time), acknowledged so the agent moves on, and the connection stays open. A large event
 * split into parts by the agent is reassembled exactly once.
 */
const { db, tdb } = await fileDatabase();
const hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 5_000, log: createLogger({ name: 't', level: 'silent' }) });
await hub.start();
afterAll(async () => {
  await hub.stop();
});

/** A raw agent: its own socket, every frame the hub sends collected. */
async function connect(): Promise<{ nodeId: string; ws: WebSocket; got: HubToAgent[]; closed: () => boolean; send: (m: unknown) => void }> {
  const { nodeId, token } = await createNodeWithToken(db, { name: `dl-${randomUUID().slice(0, 8)}` });
  const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
  const got: HubToAgent[] = [];
  let isClosed = false;
  ws.on('message', (raw) => got.push(JSON.parse(raw.toString()) as HubToAgent));
  ws.on('close', () => (isClosed = true));
  await new Promise((r) => ws.once('open', r));
  const send = (m: unknown) => ws.send(typeof m === 'string' ? m : JSON.stringify(m));
  send({ type: 'hello', protocol: PROTOCOL_VERSION, agentVersion: '0.1.0', instanceId: 'i', hostname: 'h', executors: [], lastEventSeq: 0 });
  await waitUntil('welcome', async () => got.some((m) => m.type === 'welcome'));
  return { nodeId, ws, got, closed: () => isClosed, send };
}
const acked = (got: HubToAgent[], upTo: number) => got.some((m) => m.type === 'event_ack' && m.upTo >= upTo);

describe('hub dead letters', () => {
  it('records, acknowledges and keeps the connection for a malformed event, an oversized frame and a refused payload', async () => {
    const a = await connect();
    // 1: the forged session id of issue 30 (the envelope refuses it).
    a.send({ type: 'event', seq: 1, at: 1, event: 'activity', sessionId: '../../x', payload: {} });
    await waitUntil('ack 1', async () => acked(a.got, 1));
    // 2: a frame beyond MAX_FRAME_BYTES (1.2 MB of Cyrillic).
    a.send({ type: 'event', seq: 2, at: 2, event: 'turn_final', payload: { nativeTurnId: 't', text: 'Ж'.repeat(600_000) } });
    await waitUntil('ack 2', async () => acked(a.got, 2));
    // 3: a known event with a payload its schema refuses.
    a.send({ type: 'event', seq: 3, at: 3, event: 'turn_final', payload: { text: 'no turn id' } });
    await waitUntil('ack 3', async () => acked(a.got, 3));
    // 4: not JSON at all (nothing to acknowledge, still recorded).
    a.send('{not json');
    // 5: a good event after all that is stored.
    a.send({ type: 'event', seq: 4, at: 4, event: 'marker', payload: { ok: true } });
    await waitUntil('ack 4', async () => acked(a.got, 4));
    a.send({ type: 'ping', t: 42 });
    await waitUntil('pong', async () => a.got.some((m) => m.type === 'pong' && m.t === 42));
    expect(a.closed()).toBe(false);

    const letters = (await listDeadLetters(db, a.nodeId)).reverse();
    expect(letters.map((l) => [l.seq === null ? null : Number(l.seq), l.reason])).toEqual([
      [1, expect.stringMatching(/sessionId/)],
      [2, expect.stringMatching(/exceeds 1048576/)],
      [3, expect.stringMatching(/turn_final: nativeTurnId/)],
      [null, 'not JSON'],
    ]);
    expect(letters[1]!.bytes).toBeGreaterThan(MAX_FRAME_BYTES);
    for (const l of letters) expect(l.excerpt.length).toBeLessThanOrEqual(2_000);
    const stored = await db.agentEvent.findMany({ where: { nodeId: a.nodeId }, select: { seq: true, type: true } });
    expect(stored.map((e) => [Number(e.seq), e.type])).toEqual([[4, 'marker']]);
    expect((await db.node.findUniqueOrThrow({ where: { id: a.nodeId } })).lastEventSeq).toBe(4n);
    a.ws.close();
  });

  it('records the marker an agent ledger sends for a stored record it refused, and moves past it', async () => {
    const a = await connect();
    a.send({ type: 'event', seq: 1, at: 1, event: EVENT_REFUSED, payload: { event: 'activity', reason: 'envelope: sessionId: Invalid UUID' } });
    await waitUntil('ack 1', async () => acked(a.got, 1));
    const [letter] = await listDeadLetters(db, a.nodeId);
    expect(letter).toMatchObject({ seq: 1n, reason: expect.stringMatching(/agent ledger refused activity: envelope: sessionId/) });
    expect(await db.agentEvent.count({ where: { nodeId: a.nodeId } })).toBe(0);
    a.ws.close();
  });

  it('reassembles a split 1.2 MB final exactly once, also when its parts are replayed', async () => {
    const a = await connect();
    const text = Array.from({ length: 600_000 }, (_, i) => String.fromCharCode(0x410 + (i % 32))).join('');
    const sessionId = randomUUID();
    const parts = splitEvent({ at: 7, event: 'turn_final', sessionId, generation: 2, payload: { nativeTurnId: 't9', text } }, randomUUID());
    expect(parts.length).toBeGreaterThan(2);
    const frames = parts.map((p, i) => ({ type: 'event', seq: i + 1, ...p }));
    for (const f of frames) a.send(f);
    await waitUntil('ack frames.length', async () => acked(a.got, frames.length));
    // The agent reconnects and replays everything (its ack was lost): nothing is stored twice.
    for (const f of frames) a.send(f);
    a.send({ type: 'event', seq: frames.length + 1, at: 8, event: 'marker', payload: {} });
    await waitUntil('ack frames.length + 1', async () => acked(a.got, frames.length + 1));
    const rows = await db.agentEvent.findMany({
      where: { nodeId: a.nodeId },
      orderBy: { seq: 'asc' },
      select: { seq: true, type: true, payload: true, sessionId: true },
    });
    expect(rows.map((r) => [Number(r.seq), r.type])).toEqual([
      [frames.length, 'turn_final'],
      [frames.length + 1, 'marker'],
    ]);
    const data = (rows[0]!.payload as { data: { text: string; nativeTurnId: string } }).data;
    expect(data.text.length).toBe(600_000);
    expect(data.text === text).toBe(true);
    expect(rows[0]!.sessionId).toBe(sessionId);
    expect(await listDeadLetters(db, a.nodeId)).toEqual([]);
    a.ws.close();
  });
});
