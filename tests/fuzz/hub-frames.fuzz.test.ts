import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { RECONNECT_FLOOR_MS } from '@bria/core/protocol';
import { scratchDir } from '@bria/testkit/scratch';
import { HubClient } from '../../apps/node-agent/src/hub-client/hub-client.ts';
import { Ledger } from '../../apps/node-agent/src/ledger/ledger.ts';
import { waitUntil } from '../../packages/testkit/src/wait.ts';
import { count, fuzzCounts, fuzzParams, fuzzTimeoutMs } from './fuzz-config.ts';

/**
 * The other direction: random, malformed, oversized and hostile frames from a hub into the real
 * agent connection (HubClient + its durable ledger). Invariants: the agent never crashes, runs only
 * well-formed commands and each id at most once, never reconnects sooner than the backoff's floor,
 * and loses no event it recorded (an event leaves the ledger only through an acknowledgement).
 */
let wss: WebSocketServer;
let current: WebSocket | null = null;
const arrivals: number[] = [];
const executed: string[] = [];
/** Every well-formed command id the fuzz sent (a uuid in a command frame). */
const sentIds = new Set<string>();
let client: HubClient;
let ledger: Ledger;
const welcome = () => JSON.stringify({ type: 'welcome', nodeId: randomUUID(), nodeName: 'n', heartbeatMs: 60_000, lastEventSeq: 0 });

beforeAll(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 4 * 1024 * 1024 });
  await new Promise((r) => wss.once('listening', r));
  wss.on('connection', (ws) => {
    arrivals.push(performance.now());
    ws.once('message', () => {
      ws.send(welcome());
      current = ws;
    });
  });
  ledger = new Ledger(scratchDir('bria-fuzz-agent-'), () => 'fuzz');
  client = new HubClient({
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/agent`,
    token: 't',
    ledger,
    log: () => {},
    hello: () => ({ agentVersion: '0.1.0', hostname: 'h', executors: [] }),
    onCommand: async (cmd) => {
      executed.push(cmd.id);
      return { ok: true };
    },
    // The shortest wait the backoff allows at every attempt: the fuzz closes often; gaps are still checked against the floor.
    random: () => 0,
  });
  client.start();
});
afterAll(async () => {
  await client?.stop();
  await new Promise((r) => wss.close(r));
});

const anyText = fc.string({ unit: 'binary', maxLength: 60 });
const command = fc.record({
  type: fc.constant('command'),
  id: fc.oneof(fc.uuid(), anyText),
  command: fc.oneof(fc.constantFrom('probe', 'discover', 'rm_rf', 'deliver'), anyText),
  payload: fc.oneof(fc.dictionary(anyText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), fc.jsonValue({ maxDepth: 1 })),
  issuedAt: fc.oneof(fc.nat(), anyText),
});
const frame = fc.oneof(
  { weight: 3, arbitrary: command.map((c) => JSON.stringify(c)) },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('event_ack'), upTo: fc.oneof(fc.integer({ min: -5, max: 5 }), anyText) }).map((c) => JSON.stringify(c)),
  },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constantFrom('ping', 'pong', 'refused', 'welcome', 'exec'), t: fc.oneof(fc.nat(), anyText) }).map((c) => JSON.stringify(c)),
  },
  { weight: 1, arbitrary: anyText },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b)) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1_048_600, max: 1_200_000 })
      .map((n) => JSON.stringify({ type: 'command', id: randomUUID(), command: 'probe', payload: { b: 'x'.repeat(n) }, issuedAt: 1 })),
  },
);
const wellFormedProbe = (raw: string | Buffer): string | null => {
  try {
    const v = JSON.parse(raw.toString()) as Record<string, unknown>;
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
    return v.type === 'command' && typeof v.id === 'string' && uuid.test(v.id) ? v.id : null;
  } catch {
    return null;
  }
};

describe('fuzz: hub → agent frames', () => {
  it(
    'the agent never crashes, runs only well-formed commands once, never reconnects faster than the floor, loses no event',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 5 }), async (frames) => {
          await waitUntil('online', async () => client.state === 'online' && current?.readyState === current?.OPEN, 30_000);
          const marker = client.emitUnchecked({ event: 'fuzz_marker', payload: { n: randomUUID() } });
          expect(marker).toBeDefined();
          const ws = current as WebSocket;
          const ids = frames.map(wellFormedProbe).filter((x): x is string => x !== null);
          for (const id of ids) sentIds.add(id);
          for (const f of frames) ws.send(f);
          // Let the agent handle the batch: a ping it must answer, unless it closed.
          const pong = new Promise<void>((resolve) => {
            ws.on('message', (raw) => {
              if (raw.toString().includes('"pong"')) resolve();
            });
            ws.once('close', () => resolve());
          });
          ws.send(JSON.stringify({ type: 'ping', t: 1 }));
          await pong;
          for (const id of executed) expect(sentIds.has(id), `ran ${id}, never sent well-formed`).toBe(true);
          expect(new Set(executed).size).toBe(executed.length);
          // Unacknowledged events stay, or the fuzz acknowledged them (event_ack upTo ≥ their seq).
          const acked = ledger.ackedUpTo;
          if (marker && marker.seq > acked) expect(ledger.unacked().some((e) => e.seq === marker.seq)).toBe(true);
          count('frames', frames.length);
          count('well-formed command ids', ids.length);
        }),
        fuzzParams('hub → agent frames'),
      );
      for (let n = 1; n < arrivals.length; n++) expect(arrivals[n]! - arrivals[n - 1]!).toBeGreaterThanOrEqual(RECONNECT_FLOOR_MS - 5);
      console.log(`[fuzz] hub → agent counts ${JSON.stringify({ ...fuzzCounts, connections: arrivals.length, executed: executed.length })}`);
    },
    fuzzTimeoutMs(),
  );
});
