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

/**
 * Opens a socket, optionally says hello, sends `frame`; then either the hub closes it (before a hello)
 * or it must stay open (a ping is answered after the frame was handled).
 */
async function sendFrame(frame: string | Buffer, o: { helloFirst?: boolean } = {}): Promise<{ code: number | null; acks: unknown[] }> {
  const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
  const frames: { type: string; t?: number }[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
  ws.on('error', () => undefined);
  let code: number | null = null;
  const closed = new Promise<void>((r) =>
    ws.on('close', (c) => {
      code = c;
      r();
    }),
  );
  await new Promise((r) => ws.once('open', r));
  if (o.helloFirst !== false) {
    ws.send(JSON.stringify(HELLO));
    await until(() => frames.some((f) => f.type === 'welcome'), 5_000, 'welcome');
  }
  ws.send(frame);
  if (o.helloFirst === false) await closed;
  else {
    ws.send(JSON.stringify({ type: 'ping', t: 7 }));
    await until(() => frames.some((f) => f.type === 'pong' && f.t === 7) || code !== null, 10_000, 'pong after the frame');
    ws.close();
    await closed;
    await until(async () => !(await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online, 5_000, 'offline after the close');
    return { code: frames.some((f) => f.type === 'pong') ? null : code, acks: frames.filter((f) => f.type === 'event_ack') };
  }
  return { code, acks: frames.filter((f) => f.type === 'event_ack') };
}

async function nodeState() {
  const n = await db.node.findUniqueOrThrow({ where: { id: nodeId } });
  return {
    events: await db.agentEvent.count({ where: { nodeId } }),
    lastEventSeq: n.lastEventSeq,
    commands: await db.agentCommand.count(),
    deadLetters: await db.agentDeadLetter.count({ where: { nodeId } }),
  };
}
const next = async () => Number((await nodeState()).lastEventSeq) + 1;

// Issue 30: after its hello, a frame the hub cannot accept is recorded (a dead letter), the event it
// names acknowledged, and the connection kept (closing made the agent replay it for ever).
describe('hostile frames from an authenticated agent', () => {
  it('a frame over 1 MiB: recorded, acknowledged, the connection kept, nothing stored as an event', async () => {
    const before = await nodeState();
    const seq = await next();
    const huge = JSON.stringify(event({ seq, payload: { blob: 'x'.repeat(1024 * 1024) } }));
    expect(Buffer.byteLength(huge)).toBeGreaterThan(1024 * 1024);
    const r = await sendFrame(huge);
    expect(r.code).toBeNull();
    expect(r.acks).toEqual([{ type: 'event_ack', upTo: seq }]);
    expect(await nodeState()).toEqual({ ...before, lastEventSeq: BigInt(seq), deadLetters: before.deadLetters + 1 });
    const [letter] = await db.agentDeadLetter.findMany({ where: { nodeId }, orderBy: { id: 'desc' }, take: 1 });
    expect(letter).toMatchObject({ seq: BigInt(seq), reason: expect.stringMatching(/exceeds 1048576/) });
    expect(letter!.excerpt.length).toBeLessThanOrEqual(2_000);
  });

  it('a frame over the 4 MiB read limit still closes with 1009, nothing stored', async () => {
    const before = await nodeState();
    const r = await sendFrame(JSON.stringify(event({ seq: await next(), payload: { blob: 'x'.repeat(4 * 1024 * 1024) } })));
    expect(r.code).toBe(1009);
    expect(await nodeState()).toEqual(before);
  });

  const MALFORMED: [string, (seq: number) => unknown, boolean?][] = [
    ['not JSON', () => '{"type":"event",'],
    ['binary garbage', () => Buffer.from([0xff, 0xfe, 0x00, 0x01])],
    ['a JSON array', () => '[1,2,3]'],
    ['an unknown frame type', () => ({ type: 'command', id: '00000000-0000-4000-8000-000000000000', command: 'start_session', payload: {}, issuedAt: 1 })],
    ['an unknown type name', () => ({ type: 'rm -rf', payload: {} })],
    ['seq as a string', () => event({ seq: '1' })],
    ['a negative seq', () => event({ seq: -1 })],
    ['seq zero', () => event({ seq: 0 })],
    ['a fractional seq', () => event({ seq: 1.5 })],
    ['payload not an object', (seq) => event({ seq, payload: 'x' })],
    ['an event name of 65 characters', (seq) => event({ seq, event: 'e'.repeat(65) })],
    ['a session id that is not a uuid', (seq) => event({ seq, sessionId: 'x\'; drop table "Session"; --' })],
    ['a negative generation', (seq) => event({ seq, generation: -1 })],
    ['a command ack with a non-uuid id', () => ({ type: 'command_ack', id: '../../etc/passwd' })],
  ];
  for (const [name, make] of MALFORMED) {
    it(`${name}: recorded with its reason, the connection kept, nothing stored as an event`, async () => {
      const before = await nodeState();
      const seq = await next();
      const frame = make(seq);
      const raw = typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame);
      const r = await sendFrame(raw);
      expect(r.code).toBeNull();
      const names = typeof frame === 'object' && (frame as { seq?: unknown }).seq === seq;
      expect(r.acks).toEqual(names ? [{ type: 'event_ack', upTo: seq }] : []);
      expect(await nodeState()).toEqual({ ...before, lastEventSeq: names ? BigInt(seq) : before.lastEventSeq, deadLetters: before.deadLetters + 1 });
      const [letter] = await db.agentDeadLetter.findMany({ where: { nodeId }, orderBy: { id: 'desc' }, take: 1 });
      expect(letter!.reason.length).toBeGreaterThan(0);
    });
  }

  const BEFORE_HELLO: [string, unknown][] = [
    ['a huge hostname in hello', { ...HELLO, hostname: 'h'.repeat(100_000) }],
    ['an event before hello', event()],
  ];
  for (const [name, frame] of BEFORE_HELLO) {
    it(`${name}: closed with 1002, nothing stored (an agent is known only after a valid hello)`, async () => {
      const before = await nodeState();
      const r = await sendFrame(JSON.stringify(frame), { helloFirst: false });
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
    expect(text).toContain('hub.frame_refused');
    for (const s of ['drop table', 'rm -rf', '../../etc/passwd', 'x'.repeat(1000), 'h'.repeat(1000)]) expect(text).not.toContain(s);
  });
});
