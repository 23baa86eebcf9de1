import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createDb, createNodeWithToken, issueAgentToken, revokeAgentToken, type Db } from '@bria/core/db';
import { Hub } from '@bria/core/hub';
import { startEngine, type Engine } from '../../packages/core/src/engine/start-engine.ts';
import { createTestDatabase, type TestDatabase } from '@bria/testkit/postgres';
import { capturedLogger, dbFingerprint, leaks, pause, until } from './support.ts';

/** The hub's door: who may hold an agent socket, and what one node's token can never do to another node. */
let tdb: TestDatabase;
let db: Db;
let hub: Hub;
let engine: Engine;
const logs = capturedLogger('hub');
const sockets: WebSocket[] = [];

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url);
  hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 60_000, log: logs.log });
  await hub.start();
  engine = await startEngine({ db, databaseUrl: tdb.url, log: logs.log, safetyPollMs: 200 });
});
afterAll(async () => {
  for (const ws of sockets) ws.terminate();
  await engine?.stop();
  await hub?.stop();
  await db?.$disconnect();
  await tdb?.drop();
});

const url = () => `ws://127.0.0.1:${hub.port}/agent`;
const hello = (o: { hostname?: string; instanceId?: string } = {}) =>
  JSON.stringify({
    type: 'hello',
    protocol: 1,
    agentVersion: '0.1.0',
    instanceId: o.instanceId ?? 'inst',
    hostname: o.hostname ?? 'host',
    executors: [],
    lastEventSeq: 0,
  });

/** An upgrade attempt: its HTTP status and JSON body when refused, and how long the refusal took. */
function attempt(headers: Record<string, string>, path = '/agent'): Promise<{ status: number; body: Record<string, unknown>; ms: number; ws?: WebSocket }> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}${path}`, { headers });
    sockets.push(ws);
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}'), ms: Date.now() - t0 }));
    });
    ws.on('open', () => resolve({ status: 101, body: {}, ms: Date.now() - t0, ws }));
    ws.on('error', (e) => {
      if (!/Unexpected server response/.test(e.message)) reject(e);
    });
  });
}

/** Connects, says hello and waits for the welcome. */
async function connect(token: string, o: { hostname?: string; instanceId?: string } = {}) {
  const ws = new WebSocket(url(), { headers: { authorization: `Bearer ${token}` } });
  sockets.push(ws);
  const frames: Record<string, unknown>[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  ws.send(hello(o));
  const welcome = await until(() => frames.find((f) => f.type === 'welcome'), 5_000, 'welcome');
  return { ws, frames, closed, welcome };
}

describe('agent connections need a live token of their own node', () => {
  it('no token, a wrong one, another scheme, a token in the URL and a revoked one are refused at the upgrade, slowly, and logged without the token', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: 'door' });
    const revoked = await issueAgentToken(db, nodeId, 'old');
    await revokeAgentToken(db, revoked.tokenId);
    const before = await dbFingerprint(tdb.url);
    const wrong = `bria_agent_${'x'.repeat(43)}`;
    const cases: [string, Record<string, string>, string, string?][] = [
      ['none', {}, 'bad_token'],
      ['wrong', { authorization: `Bearer ${wrong}` }, 'bad_token'],
      ['basic scheme', { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` }, 'bad_token'],
      ['token as a bare header', { authorization: token }, 'bad_token'],
      ['token in the query string', {}, 'bad_token', `/agent?token=${token}`],
      ['revoked', { authorization: `Bearer ${revoked.token}` }, 'revoked'],
    ];
    for (const [name, headers, code, path] of cases) {
      const r = await attempt(headers, path);
      expect(r.status, name).toBe(401);
      expect(r.body.code, name).toBe(code);
      expect(r.body.retryAfterMs, name).toBe(30_000);
      // The pause makes guessing slow; it is the hub's, not the network's.
      expect(r.ms, name).toBeGreaterThanOrEqual(450);
    }
    expect(await dbFingerprint(tdb.url)).toEqual(before);
    expect((await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online).toBe(false);
    const text = logs.text();
    expect(text.match(/hub\.agent_refused/g)?.length).toBeGreaterThanOrEqual(cases.length);
    expect(leaks(text, { token, wrong, revoked: revoked.token })).toEqual([]);
  });

  it('a revoked agent is disconnected at once and cannot come back', async () => {
    const { nodeId } = await createNodeWithToken(db, { name: 'revokee' });
    const t = await issueAgentToken(db, nodeId, 'live');
    const a = await connect(t.token);
    await until(async () => (await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online);
    const t0 = Date.now();
    await revokeAgentToken(db, t.tokenId);
    const c = await a.closed;
    expect(c.code).toBe(4003);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(a.frames.some((f) => f.type === 'refused' && f.code === 'revoked')).toBe(true);
    await until(async () => !(await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online, 5_000, 'node offline');
    const again = await attempt({ authorization: `Bearer ${t.token}` });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('revoked');
  });

  it("one node's token cannot act as another node: its hello, acks and events never touch the other node", async () => {
    const a = await createNodeWithToken(db, { name: 'node-a' });
    const b = await createNodeWithToken(db, { name: 'node-b' });
    await db.node.update({ where: { id: b.nodeId }, data: { hostname: 'b-host', agentInstanceId: 'b-inst' } });
    // B's own agent is connected before B's session exists (the engine's node watch would put the
    // session of a node it saw offline in AwaitingRecovery, whatever A does).
    const own = await connect(b.token, { hostname: 'b-host', instanceId: 'b-inst' });
    await until(async () => (await db.node.findUniqueOrThrow({ where: { id: b.nodeId } })).online, 5_000, 'B online');
    await pause(1200);
    const sessionB = randomUUID();
    await db.session.create({
      data: {
        id: sessionB,
        nodeId: b.nodeId,
        executor: 'claude',
        folder: '/srv/b',
        nativeSessionId: randomUUID(),
        state: 'Ready',
        observerGeneration: 1,
        lifetimeDeadline: new Date(Date.now() + 3600_000),
      },
    });
    await engine.settle();
    const cmdB = randomUUID();
    await db.agentCommand.create({ data: { id: cmdB, nodeId: b.nodeId, sessionId: sessionB, type: 'probe', payload: {}, status: 'sent' } });
    const bBefore = await db.node.findUniqueOrThrow({ where: { id: b.nodeId } });
    const sBefore = await db.session.findUniqueOrThrow({ where: { id: sessionB } });
    const evidenceBefore = await db.sessionEvidence.count({ where: { sessionId: sessionB } });

    // A's agent claims to be B (B's hostname and instance id) and speaks for B's session and command.
    const conn = await connect(a.token, { hostname: 'b-host', instanceId: 'b-inst' });
    expect(conn.welcome.nodeId).toBe(a.nodeId);
    conn.ws.send(JSON.stringify({ type: 'command_ack', id: cmdB }));
    conn.ws.send(
      JSON.stringify({
        type: 'event',
        seq: 1,
        at: Date.now(),
        event: 'process_exited',
        sessionId: sessionB,
        generation: 1,
        payload: { pids: [4242], exitStatus: 0, paneDead: true, verified: true },
      }),
    );
    await until(() => conn.frames.some((f) => f.type === 'event_ack' && f.upTo === 1), 5_000, 'event ack');
    await engine.settle();
    await pause(300);

    expect(await db.node.findUniqueOrThrow({ where: { id: b.nodeId } })).toEqual(bBefore);
    expect((await db.agentCommand.findUniqueOrThrow({ where: { id: cmdB } })).status).toBe('sent');
    expect(await db.session.findUniqueOrThrow({ where: { id: sessionB } })).toEqual(sBefore);
    expect(await db.sessionEvidence.count({ where: { sessionId: sessionB } })).toBe(evidenceBefore);
    // What A sent is kept as A's own (its seq run), nothing more.
    expect(await db.agentEvent.findMany({ where: { nodeId: b.nodeId } })).toEqual([]);
    expect(await db.agentEvent.count({ where: { nodeId: a.nodeId } })).toBe(1);
    conn.ws.close();

    // Control: the same event from B's own agent does act on B's session.
    own.ws.send(
      JSON.stringify({
        type: 'event',
        seq: 1,
        at: Date.now(),
        event: 'process_exited',
        sessionId: sessionB,
        generation: 1,
        payload: { pids: [4242], exitStatus: 0, paneDead: true, verified: true },
      }),
    );
    await until(() => own.frames.some((f) => f.type === 'event_ack' && f.upTo === 1), 5_000, 'event ack');
    await engine.settle();
    await until(async () => (await db.session.findUniqueOrThrow({ where: { id: sessionB } })).version !== sBefore.version, 10_000, 'B acts on its own session');
    own.ws.close();
  });
});
