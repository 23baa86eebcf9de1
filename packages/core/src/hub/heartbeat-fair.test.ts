import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createNodeWithToken } from '../db/repos/nodes.ts';
import { createLogger } from '../log.ts';
import { fileDatabase } from '../../../testkit/src/file-database.ts';
import { PROTOCOL_VERSION, type HubToAgent } from '../protocol/index.ts';
import { Hub } from './server.ts';

/**
 * The heartbeat judges the agent's silence, never the hub's own delays (chaos seed 350041: a node
 * reconnected with nothing wrong on its side). Two delays of the hub that must not cost a connection:
 * frames waiting in the connection's queue behind a slow write, and frames still unread in the socket
 * because the hub's event loop was blocked (timers run before sockets are read).
 */
const HEARTBEAT_MS = 200;
const { db, tdb } = await fileDatabase();
const hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: HEARTBEAT_MS, log: createLogger({ name: 't', level: 'silent' }) });
await hub.start();
const sockets: WebSocket[] = [];
afterAll(async () => {
  for (const ws of sockets) ws.terminate();
  await hub.stop();
});

/** A raw agent that answers every ping with a pong; `pings(n)` resolves at the n-th ping, rejects on close. */
async function agent(token: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
  sockets.push(ws);
  const got: HubToAgent[] = [];
  let closed: string | null = null;
  const waiters: { n: number; ok: () => void; fail: (e: Error) => void }[] = [];
  const settle = () => {
    const pings = got.filter((m) => m.type === 'ping').length;
    for (const w of [...waiters]) {
      if (pings >= w.n) w.ok();
      else if (closed !== null) w.fail(new Error(`closed by the hub after ${pings} pings: ${closed}`));
      else continue;
      waiters.splice(waiters.indexOf(w), 1);
    }
  };
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString()) as HubToAgent;
    got.push(m);
    if (m.type === 'ping') ws.send(JSON.stringify({ type: 'pong', t: m.t }));
    settle();
  });
  ws.on('close', (code) => {
    closed = `code ${code}`;
    settle();
  });
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  const count = () => got.filter((m) => m.type === 'ping').length;
  return {
    ws,
    got,
    count,
    /** Resolves once `n` more pings than now have arrived; rejects if the hub closes the socket first. */
    pings: (more: number) =>
      new Promise<void>((ok, fail) => {
        waiters.push({ n: count() + more, ok, fail });
        settle();
      }),
    hello: () =>
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
      ),
  };
}

describe("hub heartbeat: the hub's own delays are not the agent's silence", () => {
  it('frames queued behind a slow write still count as heard (the node row locked in Postgres during the hello)', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: `hb-${randomUUID().slice(0, 8)}` });
    const lock = new pg.Client({ connectionString: tdb.url });
    await lock.connect();
    try {
      await lock.query('begin');
      await lock.query('select 1 from "Node" where id = $1 for update', [nodeId]);
      const a = await agent(token);
      a.hello(); // its "online" write now waits for the lock; the pongs queue behind the hello
      // Six beats (twice the silence bound of three) with the hello still unanswered; the hub's own
      // bound for a hello (10 s) still allows them on a loaded machine.
      await a.pings(6);
      expect(a.got.some((m) => m.type === 'welcome')).toBe(false);
      await lock.query('commit');
      await new Promise<void>((r, j) => {
        const t = setInterval(() => {
          if (a.got.some((m) => m.type === 'welcome')) r(clearInterval(t));
          else if (a.ws.readyState !== WebSocket.OPEN) {
            clearInterval(t);
            j(new Error('closed before the welcome'));
          }
        }, 20);
      });
      await a.pings(3);
      expect(a.ws.readyState).toBe(WebSocket.OPEN);
      expect((await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online).toBe(true);
    } finally {
      await lock.end().catch(() => {});
    }
  }, 60_000);

  it("a blocked event loop: the first beat after it judges no one, the agent's frames are read first", async () => {
    const { token } = await createNodeWithToken(db, { name: `hb-${randomUUID().slice(0, 8)}` });
    // Welcomed first, as an agent would be: on a machine loaded past the hub's hello bound (10 s) the
    // hub closes an unanswered hello (1002) and the agent connects again.
    let a = await agent(token);
    for (let attempt = 1; ; attempt++) {
      a.hello();
      const welcomed = await new Promise<boolean>((r) => {
        const t = setInterval(() => {
          if (a.got.some((m) => m.type === 'welcome')) r(true);
          else if (a.ws.readyState !== WebSocket.OPEN) r(false);
          else return;
          clearInterval(t);
        }, 20);
      });
      if (welcomed) break;
      if (attempt === 5) throw new Error('no welcome in five connections');
      a = await agent(token);
    }
    await a.pings(2);
    // The whole process (hub and this client) stops for five beats; the client's pong is already sent.
    const until = Date.now() + 5 * HEARTBEAT_MS;
    while (Date.now() < until) {
      /* blocked, as a paused or starved hub is */
    }
    await a.pings(5);
    expect(a.ws.readyState).toBe(WebSocket.OPEN);
  }, 60_000);
});
