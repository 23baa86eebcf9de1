import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { scratchDir } from '@bria/testkit/scratch';
import { Ledger } from '../ledger/ledger.ts';
import { HubClient } from './hub-client.ts';

/**
 * The agent's watchdog judges the hub's silence, never its own stall (the hub does the same, see
 * core's heartbeat-fair.test.ts): after the agent's event loop was blocked for several beats, the
 * first beat finds the hub's pings still unread in the socket and must not drop the connection.
 */
const HEARTBEAT_MS = 200;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('agent watchdog', () => {
  it('a blocked event loop does not cost the connection: the same socket is kept after it', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    const connections: WebSocket[] = [];
    let pings = 0;
    wss.on('connection', (ws) => {
      connections.push(ws);
      ws.on('message', (raw) => {
        const m = JSON.parse(raw.toString()) as { type: string; t?: number };
        if (m.type === 'hello') ws.send(JSON.stringify({ type: 'welcome', nodeId: randomUUID(), nodeName: 'n', heartbeatMs: HEARTBEAT_MS, lastEventSeq: 0 }));
        if (m.type === 'ping') {
          pings += 1;
          ws.send(JSON.stringify({ type: 'pong', t: m.t }));
        }
      });
    });
    cleanups.push(() => new Promise<void>((r) => wss.close(() => r())));
    const client = new HubClient({
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/agent`,
      token: 't',
      ledger: new Ledger(scratchDir('bria-watchdog-'), () => 'i'),
      hello: () => ({ agentVersion: '0.1.0', hostname: 'h', executors: [] }),
      onCommand: async () => ({ ok: true }),
      log: () => {},
    });
    cleanups.push(() => client.stop());
    client.start();
    const pingsReach = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const t = setInterval(() => {
          if (pings >= n) resolve(clearInterval(t));
          else if (connections.length > 1) {
            clearInterval(t);
            reject(new Error(`reconnected (${connections.length} connections)`));
          }
        }, 10);
      });
    await pingsReach(2);
    expect(client.state).toBe('online');
    // The process stops for five beats; the fake hub's last pong is already on its way.
    const until = Date.now() + 5 * HEARTBEAT_MS;
    while (Date.now() < until) {
      /* blocked, as a starved or stopped agent is */
    }
    await pingsReach(pings + 5);
    expect(connections).toHaveLength(1);
    expect(client.state).toBe('online');
  }, 60_000);
});
