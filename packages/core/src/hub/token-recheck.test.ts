import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createNodeWithToken } from '../db/repos/nodes.ts';
import { createLogger } from '../log.ts';
import { CloseCode, PROTOCOL_VERSION } from '../protocol/index.ts';
import { fileDatabase } from '../../../testkit/src/file-database.ts';
import { waitUntil } from '../../../testkit/src/wait.ts';
import { Hub } from './server.ts';

/**
 * Issue 30: a token revoked while the hub's LISTEN connection was down (its NOTIFY lost) must still
 * close the agent's socket: the hub reads its sockets' tokens again after the LISTEN connection is
 * back, and on every heartbeat. The revocations here are bare UPDATEs without the NOTIFY, i.e.
 * exactly what a hub whose LISTEN connection was away at that moment gets to see.
 */
const { db, tdb } = await fileDatabase();
const hubs: Hub[] = [];
const sockets: WebSocket[] = [];
afterAll(async () => {
  for (const ws of sockets) ws.terminate();
  for (const h of hubs) await h.stop();
});

async function startHub(heartbeatMs: number): Promise<Hub> {
  const hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs, log: createLogger({ name: 't', level: 'silent' }) });
  hubs.push(hub);
  await hub.start();
  return hub;
}

/** An agent socket, welcomed; resolves `closed` with the close code. */
async function agent(hub: Hub, token: string): Promise<{ ws: WebSocket; closed: Promise<number>; pings: () => number }> {
  let pings = 0;
  const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
  sockets.push(ws);
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  const welcomed = new Promise<void>((r) =>
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as { type?: string };
      if (m.type === 'welcome') r();
      // Answer pings, so only the token can end this socket.
      if (m.type === 'ping') pings += 1;
      if (m.type === 'ping') ws.send(JSON.stringify({ type: 'pong', t: (m as { t?: number }).t ?? 0 }));
    }),
  );
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  ws.send(
    JSON.stringify({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      agentVersion: '0.0.9',
      instanceId: randomUUID(),
      hostname: 'h',
      executors: [],
      lastEventSeq: 0,
    }),
  );
  await welcomed;
  return { ws, closed, pings: () => pings };
}

/** Revoked as a NOTIFY-less write: what the hub sees when its LISTEN connection missed the NOTIFY. */
async function revokeSilently(nodeId: string): Promise<void> {
  await db.agentToken.updateMany({ where: { nodeId }, data: { revokedAt: new Date() } });
}

describe('agent token revocation is re-checked', () => {
  it('after the LISTEN connection reconnects: a token revoked while it was down closes its socket', async () => {
    // A heartbeat far beyond the test: only the reconnect can close the socket.
    const hub = await startHub(600_000);
    const { nodeId, token } = await createNodeWithToken(db, { name: `listen-${randomUUID().slice(0, 6)}` });
    const a = await agent(hub, token);
    await revokeSilently(nodeId);
    // The hub's LISTEN connection is dropped (as by a Postgres restart or a network cut).
    const admin = new pg.Client({ connectionString: tdb.url });
    await admin.connect();
    try {
      const killed = await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'",
      );
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    expect(await a.closed).toBe(CloseCode.revoked);
    expect(a.ws.readyState).toBe(WebSocket.CLOSED);
  });

  it('on every heartbeat: a token revoked without the hub hearing of it closes its socket within a beat', async () => {
    const hub = await startHub(300);
    const { nodeId, token } = await createNodeWithToken(db, { name: `beat-${randomUUID().slice(0, 6)}` });
    const keep = await createNodeWithToken(db, { name: `kept-${randomUUID().slice(0, 6)}` });
    const a = await agent(hub, token);
    const b = await agent(hub, keep.token);
    await revokeSilently(nodeId);
    expect(await a.closed).toBe(CloseCode.revoked);
    // The other node's live token keeps its socket through the next beats.
    const seen = b.pings();
    await waitUntil('three more heartbeats', async () => b.pings() >= seen + 3);
    expect(b.ws.readyState).toBe(WebSocket.OPEN);
    expect(hub.onlineNodeIds).toContain(keep.nodeId);
  });
});
