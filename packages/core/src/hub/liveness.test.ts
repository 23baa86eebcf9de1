import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Db } from '../db/client.ts';
import { createNodeWithToken } from '../db/repos/nodes.ts';
import { createLogger } from '../log.ts';
import { waitUntil } from '../../../testkit/src/wait.ts';
import { fileDatabase } from '../../../testkit/src/file-database.ts';
import { Hub } from './server.ts';

/**
 * A node whose socket closes and at once reconnects (an agent restart, a network blip) must end up
 * online: the closed socket's "offline" write is started first but may reach Postgres after the new
 * connection's "online" write. Here the offline write is held back until the new connection has been
 * welcomed (or, where the hub makes the new hello wait for it, a short outer bound), then let go.
 */
const { db, tdb } = await fileDatabase();

/** The hold on the next "offline" write; made afresh by each attempt (the suite may retry once). */
interface Gate {
  hit: Promise<void>;
  onHit: () => void;
  release: () => void;
  released: Promise<void>;
  written: boolean;
}
let gate: Gate | null = null;
function armGate(): Gate {
  const g = { written: false } as Gate;
  g.hit = new Promise<void>((r) => {
    g.onHit = r;
  });
  g.released = new Promise<void>((r) => {
    g.release = r;
  });
  gate = g;
  return g;
}

const gated = db.$extends({
  query: {
    node: {
      async update({ args, query }) {
        const data = args.data as { online?: boolean };
        const g = gate;
        if (g && data.online === false) {
          gate = null;
          g.onHit();
          await g.released;
          const r = await query(args);
          g.written = true;
          return r;
        }
        return query(args);
      },
    },
  },
}) as unknown as Db;

const hub = new Hub({ db: gated, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 60_000, log: createLogger({ name: 't', level: 'silent' }) });
await hub.start();
const sockets: WebSocket[] = [];
afterAll(async () => {
  gate?.release();
  for (const ws of sockets) ws.terminate();
  await hub.stop();
});

async function connect(token: string): Promise<{ ws: WebSocket; welcomed: Promise<void> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
  sockets.push(ws);
  const welcomed = new Promise<void>((r) =>
    ws.on('message', (raw) => {
      if ((JSON.parse(raw.toString()) as { type?: string }).type === 'welcome') r();
    }),
  );
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  ws.send(JSON.stringify({ type: 'hello', protocol: 1, agentVersion: '0.0.9', instanceId: randomUUID(), hostname: 'h', executors: [], lastEventSeq: 0 }));
  return { ws, welcomed };
}

describe('hub: node liveness across a quick reconnect', () => {
  it('an old socket\'s late "offline" does not leave the reconnected node offline', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: 'blip' });
    const first = await connect(token);
    await first.welcomed;
    expect((await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online).toBe(true);

    const g = armGate();
    first.ws.close();
    await g.hit; // the hub has started writing "offline" for the closed socket
    const second = await connect(token);
    // Without ordering, the new "online" lands now and the welcome comes; with it, the hello waits.
    await Promise.race([second.welcomed, new Promise((r) => setTimeout(r, 1500))]);
    g.release();
    await second.welcomed;
    await waitUntil('the held offline write', async () => g.written, 15_000, 25);

    const node = await db.node.findUniqueOrThrow({ where: { id: nodeId } });
    expect(node.online).toBe(true);
    expect(second.ws.readyState).toBe(WebSocket.OPEN);
  }, 30_000);
});
