import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createNodeWithToken } from '@bria/core/db';
import { Hub } from '@bria/core/hub';
import { createLogger } from '@bria/core/log';
import { PROTOCOL_VERSION } from '@bria/core/protocol';
import { fileDatabase } from '../../packages/testkit/src/file-database.ts';
import { waitUntil } from '../../packages/testkit/src/wait.ts';
import { count, fuzzCounts, fuzzParams, fuzzTimeoutMs } from './fuzz-config.ts';

/**
 * Random, malformed, oversized and hostile frames from an authenticated agent into the real hub
 * (issue 30). Invariants, after every batch: the connection is still open (a ping is answered) and
 * the node online; every event frame the hub saw at its next seq is either stored or recorded as a
 * dead letter with a reason (nothing accepted is lost, nothing refused without a reason); every other
 * refused frame is a dead letter; the process's memory stays bounded.
 */
const { db, tdb } = await fileDatabase();
const hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 60_000, log: createLogger({ name: 'fuzz', level: 'silent' }) });
let ws: WebSocket;
let nodeId: string;
const got: { type: string; t?: number; upTo?: number }[] = [];
let closed: number | null = null;

beforeAll(async () => {
  await hub.start();
  const n = await createNodeWithToken(db, { name: `fuzz-${randomUUID().slice(0, 8)}` });
  nodeId = n.nodeId;
  ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${n.token}` } });
  ws.on('message', (raw) => got.push(JSON.parse(raw.toString())));
  ws.on('close', (code) => (closed = code));
  await new Promise((r) => ws.once('open', r));
  ws.send(
    JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, agentVersion: '0.1.0', instanceId: 'fuzz', hostname: 'h', executors: [], lastEventSeq: 0 }),
  );
  await waitUntil('welcome', async () => got.some((m) => m.type === 'welcome'));
});
afterAll(async () => {
  ws?.close();
  await hub.stop();
});

type Frame = { kind: 'event'; fields: Record<string, unknown> } | { kind: 'junk'; raw: string | Buffer };

const NAMES = ['marker', 'turn_final', 'activity', 'permission_request', 'event_part', 'event_refused', 'command_result', 'discovery_diff', 'usage'];
const anyText = fc.string({ unit: 'binary', maxLength: 60 });
const eventFrame: fc.Arbitrary<Frame> = fc
  .record(
    {
      at: fc.oneof(fc.integer(), fc.double(), anyText),
      event: fc.oneof(fc.constantFrom(...NAMES), anyText),
      sessionId: fc.oneof(fc.uuid(), anyText),
      commandId: fc.oneof(fc.uuid(), anyText),
      generation: fc.oneof(fc.nat(), fc.integer({ min: -3, max: -1 }), fc.double()),
      payload: fc.oneof(
        { weight: 4, arbitrary: fc.dictionary(anyText, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
        { weight: 1, arbitrary: fc.record({ nativeTurnId: anyText, text: fc.string({ unit: 'binary', maxLength: 300 }) }) },
        { weight: 1, arbitrary: fc.integer({ min: 1_048_600, max: 1_300_000 }).map((n) => ({ blob: 'x'.repeat(n) })) },
      ),
    },
    { requiredKeys: ['at', 'event', 'payload'] },
  )
  .map((fields) => ({ kind: 'event', fields }));
/** Frames the protocol accepts: marker events with any JSON payload, and finals of many sizes. */
const goodFrame: fc.Arbitrary<Frame> = fc
  .oneof(
    fc.record({ at: fc.nat(), event: fc.constant('fuzz_marker'), payload: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }) }),
    fc.record({
      at: fc.nat(),
      event: fc.constant('turn_final'),
      sessionId: fc.uuid(),
      generation: fc.nat(),
      payload: fc.record({ nativeTurnId: fc.string({ minLength: 1, maxLength: 20 }), text: fc.string({ unit: 'grapheme', maxLength: 2000 }) }),
    }),
  )
  .map((fields) => ({ kind: 'event', fields }));
const junkFrame: fc.Arbitrary<Frame> = fc
  .oneof(
    anyText,
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
    fc.record({ type: fc.constantFrom('command_ack', 'pong', 'ping', 'nope'), id: anyText, t: anyText }).map((v) => JSON.stringify(v)),
  )
  .filter((raw) => {
    try {
      const v = JSON.parse(raw.toString()) as { type?: unknown };
      return !(
        typeof v === 'object' &&
        v !== null &&
        'type' in v &&
        ['hello', 'event', 'ping', 'pong', 'command_ack'].includes(String(v.type)) &&
        raw.toString().includes('"t":')
      );
    } catch {
      return true;
    }
  })
  .map((raw) => ({ kind: 'junk', raw }));

describe('fuzz: agent → hub frames', () => {
  it(
    'the node stays online, nothing accepted is lost, every refusal is a dead letter with a reason, memory bounded',
    async () => {
      const heap0 = process.memoryUsage().heapUsed;
      let pings = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof({ weight: 3, arbitrary: goodFrame }, { weight: 3, arbitrary: eventFrame }, { weight: 2, arbitrary: junkFrame }), {
            minLength: 1,
            maxLength: 6,
          }),
          async (frames) => {
            const node0 = await db.node.findUniqueOrThrow({ where: { id: nodeId } });
            const letters0 = await db.agentDeadLetter.count({ where: { nodeId } });
            let seq = Number(node0.lastEventSeq);
            const seqs: number[] = [];
            let junk = 0;
            for (const f of frames) {
              if (f.kind === 'event') {
                seq += 1;
                seqs.push(seq);
                ws.send(JSON.stringify({ type: 'event', seq, ...f.fields }));
              } else {
                junk += 1;
                ws.send(f.raw);
              }
            }
            const t = ++pings;
            ws.send(JSON.stringify({ type: 'ping', t }));
            await waitUntil('pong', async () => closed !== null || got.some((m) => m.type === 'pong' && m.t === t), 60_000);
            expect(closed, 'the hub closed the connection').toBeNull();
            const node = await db.node.findUniqueOrThrow({ where: { id: nodeId } });
            expect(node.online).toBe(true);
            expect(Number(node.lastEventSeq)).toBe(seq);
            const stored = new Set(
              (await db.agentEvent.findMany({ where: { nodeId, seq: { in: seqs.map(BigInt) } }, select: { seq: true } })).map((e) => Number(e.seq)),
            );
            const letters = await db.agentDeadLetter.findMany({ where: { nodeId, id: { gt: 0n } }, orderBy: { id: 'desc' }, take: frames.length });
            const lettered = new Set(letters.filter((l) => l.seq !== null).map((l) => Number(l.seq)));
            for (const s of seqs) expect(stored.has(s) !== lettered.has(s), `seq ${s}: stored xor dead letter`).toBe(true);
            // Parts wait for their last part: a stored part is fine; a part completing nothing is a dead letter.
            const refusedEvents = seqs.filter((s) => lettered.has(s)).length;
            expect(await db.agentDeadLetter.count({ where: { nodeId } })).toBe(letters0 + refusedEvents + junk);
            for (const l of letters) expect(l.reason.length).toBeGreaterThan(0);
            count('frames', frames.length);
            count('events stored', seqs.length - refusedEvents);
            count('events refused', refusedEvents);
            count('junk refused', junk);
          },
        ),
        fuzzParams('agent → hub frames'),
      );
      const growthMb = (process.memoryUsage().heapUsed - heap0) / 1e6;
      console.log(`[fuzz] agent → hub counts ${JSON.stringify(fuzzCounts)}, heap growth ${growthMb.toFixed(1)} MB`);
      expect(growthMb).toBeLessThan(512);
    },
    fuzzTimeoutMs(),
  );
});
