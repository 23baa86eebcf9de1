import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { RECONNECT_FLOOR_MS, RECONNECT_HEALTHY_MS, reconnectDelay } from '@bria/core/protocol';
import { scratchDir } from '@bria/testkit/scratch';
import { Ledger } from '../ledger/ledger.ts';
import { HubClient } from './hub-client.ts';

/**
 * Issue 30: a hub that welcomes the agent and then closes every connection (what a frame it could
 * not take used to cause) is asked ever more slowly: the attempt count resets only after a healthy
 * connection, and no attempt comes sooner than its scheduled backoff. Before the fix the welcome
 * reset the backoff and the agent reconnected ~3.5 times a second for ever.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A hub that answers each hello with a welcome and closes the socket right after. */
async function closingHub(): Promise<{ url: string; arrivals: number[] }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  const arrivals: number[] = [];
  wss.on('connection', (ws) => {
    arrivals.push(performance.now());
    ws.on('message', () => {
      ws.send(JSON.stringify({ type: 'welcome', nodeId: randomUUID(), nodeName: 'n', heartbeatMs: 10_000, lastEventSeq: 0 }));
      setImmediate(() => ws.close(1002, 'cannot take that'));
    });
  });
  cleanups.push(() => new Promise<void>((r) => wss.close(() => r())));
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/agent`, arrivals };
}

describe('agent reconnect backoff', () => {
  it('against a hub that closes every connection: each attempt waits at least its backoff, and the waits grow', async () => {
    const hub = await closingHub();
    const draws: number[] = [];
    const client = new HubClient({
      url: hub.url,
      token: 't',
      ledger: new Ledger(scratchDir('bria-backoff-'), () => 'i'),
      hello: () => ({ agentVersion: '0.1.0', hostname: 'h', executors: [] }),
      onCommand: async () => ({ ok: true }),
      log: () => {},
      random: () => {
        const r = Math.random();
        draws.push(r);
        return r;
      },
    });
    cleanups.push(() => client.stop());
    client.start();
    const windowMs = 6_000;
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (performance.now() - t0 >= windowMs) {
          clearInterval(check);
          resolve();
        }
      }, 50);
    });
    const attempts = hub.arrivals.length;
    // The fastest the schedule allows in 6 s (every draw 0, i.e. 250 ms waits) is 24 connections;
    // with the growing ceiling and uniform draws it is a handful. Before the fix: ~17-24.
    expect(attempts).toBeGreaterThanOrEqual(3);
    for (let n = 1; n < attempts; n++) {
      const gap = hub.arrivals[n]! - hub.arrivals[n - 1]!;
      const scheduled = reconnectDelay(n - 1, draws[n - 1]!);
      expect(gap, `attempt ${n}: gap ${gap.toFixed(0)} ms, scheduled ${scheduled} ms`).toBeGreaterThanOrEqual(Math.max(RECONNECT_FLOOR_MS, scheduled) - 5);
    }
    // The ceilings grow 0.5, 1, 2, 4 s: the sum of the floors of the first k waits bounds k.
    const lowerBoundTotal = draws.slice(0, attempts - 1).reduce((sum, r, n) => sum + reconnectDelay(n, r), 0);
    expect(lowerBoundTotal).toBeLessThanOrEqual(windowMs);
    expect(attempts).toBeLessThanOrEqual(12);
  });

  it('a connection that stayed up RECONNECT_HEALTHY_MS resets the backoff: the next attempt waits the first ceiling again', async () => {
    // The first three connections are closed right after the welcome (the waits grow 0.5, 1, 2 s with
    // every draw at its ceiling); the fourth is held past the healthy mark, then closed by the hub.
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    cleanups.push(() => new Promise<void>((r) => wss.close(() => r())));
    const arrivals: number[] = [];
    let heldClosedAt: number | null = null;
    let resolveFifth: () => void = () => {};
    const fifth = new Promise<void>((r) => {
      resolveFifth = r;
    });
    wss.on('connection', (ws) => {
      arrivals.push(performance.now());
      const n = arrivals.length;
      if (n === 5) resolveFifth();
      ws.on('message', () => {
        ws.send(JSON.stringify({ type: 'welcome', nodeId: randomUUID(), nodeName: 'n', heartbeatMs: 60_000, lastEventSeq: 0 }));
        if (n <= 3) setImmediate(() => ws.close(1002, 'cannot take that'));
        else if (n === 4)
          setTimeout(() => {
            heldClosedAt = performance.now();
            ws.close(1001, 'going away');
          }, RECONNECT_HEALTHY_MS + 500);
      });
    });
    const delays: number[] = [];
    const client = new HubClient({
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/agent`,
      token: 't',
      ledger: new Ledger(scratchDir('bria-backoff-'), () => 'i'),
      hello: () => ({ agentVersion: '0.1.0', hostname: 'h', executors: [] }),
      onCommand: async () => ({ ok: true }),
      log: () => {},
      random: () => {
        // Recorded after the previous draw's schedule: the wait the client chose each time.
        queueMicrotask(() => delays.push(client.retryDelayMs ?? -1));
        return 1;
      },
    });
    cleanups.push(() => client.stop());
    client.start();
    await fifth;
    // Waits before connections 2, 3, 4: growing; before 5 (after the healthy one): the first ceiling.
    expect(delays.slice(0, 3)).toEqual([reconnectDelay(0, 1), reconnectDelay(1, 1), reconnectDelay(2, 1)]);
    expect(delays[3]).toBe(reconnectDelay(0, 1));
    const gap = arrivals[4]! - heldClosedAt!;
    expect(gap).toBeGreaterThanOrEqual(reconnectDelay(0, 1) - 5);
    // Without the reset the fourth wait would be attempt 3's: 4 s at this draw.
    expect(reconnectDelay(3, 1)).toBeGreaterThan(reconnectDelay(0, 1));
  }, 60_000);
});
