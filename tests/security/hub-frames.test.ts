import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CloseCode } from '../../packages/core/src/protocol/index.ts';
import { createDb, createNodeWithToken, type Db } from '@bria/core/db';
import { Hub } from '@bria/core/hub';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { capturedLogger, until } from './support.ts';

/** What an authenticated but hostile (or broken) agent can send: oversized and malformed frames. */
let tdb: TestDatabase;
let db: Db;
let hub: Hub;
let nodeId: string;
let token: string;
const logs = capturedLogger('hub');

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url);
  hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 60_000, log: logs.log });
  await hub.start();
  ({ nodeId, token } = await createNodeWithToken(db, { name: 'frames' }));
});
afterAll(async () => {
  await hub?.stop();
  await db?.$disconnect();
  await tdb?.drop();
});

const HELLO = { type: 'hello', protocol: 1, agentVersion: '0.1.0', instanceId: 'i', hostname: 'h', executors: [], lastEventSeq: 0 };
const event = (o: Record<string, unknown> = {}) => ({ type: 'event', seq: 1, at: Date.now(), event: 'test_marker', payload: {}, ...o });

/** Opens a socket, optionally says hello, sends `frame` and reports how the hub closed it. */
async function sendAndClose(frame: string | Buffer, o: { helloFirst?: boolean } = {}): Promise<{ code: number; acks: unknown[] }> {
  const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
  const frames: { type: string }[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
  ws.on('error', () => undefined);
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  await new Promise((r) => ws.once('open', r));
  if (o.helloFirst !== false) {
    ws.send(JSON.stringify(HELLO));
    await until(() => frames.some((f) => f.type === 'welcome'), 5_000, 'welcome');
  }
  ws.send(frame);
  const code = await closed;
  return { code, acks: frames.filter((f) => f.type === 'event_ack') };
}

async function nodeState() {
  const n = await db.node.findUniqueOrThrow({ where: { id: nodeId } });
  return { events: await db.agentEvent.count({ where: { nodeId } }), lastEventSeq: n.lastEventSeq, commands: await db.agentCommand.count() };
}

describe('hostile frames from an authenticated agent', () => {
  it('a frame over 1 MiB closes the socket with 1009; nothing is stored and the node reconnects cleanly', async () => {
    const before = await nodeState();
    const huge = JSON.stringify(event({ payload: { blob: 'x'.repeat(1024 * 1024) } }));
    expect(Buffer.byteLength(huge)).toBeGreaterThan(1024 * 1024);
    expect((await sendAndClose(huge)).code).toBe(1009);
    await until(async () => !(await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online, 5_000, 'offline after the close');
    expect(await nodeState()).toEqual(before);
    // The node is consistent: the next well-formed event is stored as seq 1 and acknowledged.
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
    const frames: { type: string; upTo?: number }[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify(HELLO));
    await until(() => frames.some((f) => f.type === 'welcome'), 5_000, 'welcome');
    ws.send(JSON.stringify(event({ seq: Number(before.lastEventSeq) + 1 })));
    await until(() => frames.some((f) => f.type === 'event_ack' && f.upTo === Number(before.lastEventSeq) + 1), 5_000, 'ack');
    expect((await nodeState()).events).toBe(before.events + 1);
    ws.close();
    await until(async () => !(await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online, 5_000, 'offline');
  });

  const MALFORMED: [string, unknown, boolean?][] = [
    ['not JSON', '{"type":"event",', true],
    ['binary garbage', Buffer.from([0xff, 0xfe, 0x00, 0x01]), true],
    ['a JSON array', '[1,2,3]', true],
    ['an unknown frame type', { type: 'command', id: '00000000-0000-4000-8000-000000000000', command: 'start_session', payload: {}, issuedAt: 1 }],
    ['an unknown type name', { type: 'rm -rf', payload: {} }],
    ['seq as a string', event({ seq: '1' })],
    ['a negative seq', event({ seq: -1 })],
    ['seq zero', event({ seq: 0 })],
    ['a fractional seq', event({ seq: 1.5 })],
    ['payload not an object', event({ payload: 'x' })],
    ['an event name of 65 characters', event({ event: 'e'.repeat(65) })],
    ['a huge hostname in hello', { ...HELLO, hostname: 'h'.repeat(100_000) }, false],
    ['a session id that is not a uuid', event({ sessionId: 'x\'; drop table "Session"; --' })],
    ['a negative generation', event({ generation: -1 })],
    ['an event before hello', event(), false],
    ['a command ack with a non-uuid id', { type: 'command_ack', id: '../../etc/passwd' }],
  ];
  for (const [name, frame, helloFirst] of MALFORMED) {
    it(`${name}: closed with 1002, nothing stored`, async () => {
      const before = await nodeState();
      const raw = typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame);
      const r = await sendAndClose(raw, { helloFirst: helloFirst ?? true });
      expect(r.code).toBe(1002);
      expect(r.acks).toEqual([]);
      expect(await nodeState()).toEqual(before);
    });
  }

  // A hello of another protocol version is not malformed: it is refused by name (a `refused` frame,
  // then close code 4010), so the agent can say so instead of retrying (docs/architecture.md).
  it('a hello of another protocol version: refused with 4010 and the reason, nothing stored', async () => {
    const before = await nodeState();
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
    const frames: { type: string; [k: string]: unknown }[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    ws.on('error', () => undefined);
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ ...HELLO, protocol: 2 }));
    expect(await closed).toBe(CloseCode.protocolMismatch);
    expect(frames.map((f) => f.type)).toEqual(['refused']);
    expect(await nodeState()).toEqual(before);
  });

  it('logs name the problem but never echo the frame contents', () => {
    const text = logs.text();
    expect(text).toContain('hub.bad_frame');
    for (const s of ['drop table', 'rm -rf', '../../etc/passwd', 'x'.repeat(1000), 'h'.repeat(1000)]) expect(text).not.toContain(s);
  });
});
