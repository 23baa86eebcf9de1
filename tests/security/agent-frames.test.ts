import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { HubClient } from '../../apps/node-agent/src/hub-client/hub-client.ts';
import { Ledger } from '../../apps/node-agent/src/ledger/ledger.ts';
import { until } from './support.ts';

/**
 * The other direction: a hostile (or compromised) hub. The agent must close on oversized (1009) and
 * malformed (1002) frames, execute nothing, record nothing, and reconnect cleanly afterwards. A
 * well-formed command of a type it does not know is answered `unsupported` (nothing run) and the
 * connection kept, so a newer hub cannot make an older agent reconnect over and over.
 */
const dir = mkdtempSync(join(tmpdir(), 'bria-sec-agent-'));
let wss: WebSocketServer;
let client: HubClient;
const executed: string[] = [];
const closes: number[] = [];
let hostile: (string | Buffer)[] = [];
let connections = 0;
/** Every frame the agent sent, in order. */
const received: Record<string, unknown>[] = [];
const ledger = new Ledger(dir, () => randomUUID());

const welcome = JSON.stringify({ type: 'welcome', nodeId: randomUUID(), nodeName: 'n', heartbeatMs: 60_000, lastEventSeq: 0 });
const command = (o: Record<string, unknown> = {}) => ({ type: 'command', id: randomUUID(), command: 'probe', payload: {}, issuedAt: Date.now(), ...o });

beforeAll(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  wss.on('connection', (ws) => {
    connections += 1;
    ws.on('close', (code) => closes.push(code));
    ws.on('message', (raw) => {
      try {
        received.push(JSON.parse(raw.toString()) as Record<string, unknown>);
      } catch {}
    });
    ws.once('message', () => {
      ws.send(welcome);
      const next = hostile.shift();
      if (next !== undefined) ws.send(next);
    });
  });
  const port = (wss.address() as { port: number }).port;
  client = new HubClient({
    url: `ws://127.0.0.1:${port}/agent`,
    token: `bria_agent_${'t'.repeat(43)}`,
    ledger,
    log: () => undefined,
    hello: () => ({ agentVersion: '0.1.0', hostname: 'h', executors: [] }),
    onCommand: async (cmd) => {
      executed.push(cmd.id);
      return {};
    },
    // The shortest wait the backoff allows (0.25 s) at every attempt: each case closes the connection
    // right after its welcome, so the attempt count never resets and the waits would grow to 30 s.
    random: () => 0,
  });
});
afterAll(async () => {
  await client?.stop();
  await new Promise((r) => wss.close(r));
  rmSync(dir, { recursive: true, force: true });
});

async function deliverHostile(frame: string | Buffer): Promise<number> {
  hostile = [frame];
  const before = closes.length;
  if (connections === 0) client.start();
  else for (const ws of wss.clients) ws.close(1000, 'next case');
  // The close under test is the one after the hostile frame (a 1000 above is ours).
  const code = await until(() => closes.slice(before).find((c) => c !== 1000), 15_000, 'agent closes');
  return code;
}

describe('hostile frames from the hub', () => {
  it('a command over 1 MiB: the agent closes with 1009 and runs nothing', async () => {
    const big = command({ payload: { blob: 'x'.repeat(1024 * 1024) } });
    expect(await deliverHostile(JSON.stringify(big))).toBe(1009);
    expect(executed).toEqual([]);
    expect(ledger.command(big.id as string)).toBeUndefined();
  });

  const MALFORMED: [string, string | Buffer][] = [
    ['not JSON', '{"type":"command"'],
    ['binary garbage', Buffer.from([0xff, 0x00, 0xfe])],
    ['a command id that is not a uuid', JSON.stringify(command({ id: '../../ledger' }))],
    ['a negative generation', JSON.stringify(command({ generation: -1 }))],
    ['a payload that is not an object', JSON.stringify(command({ payload: 'sh -c reboot' }))],
    ['a negative event ack', JSON.stringify({ type: 'event_ack', upTo: -5 })],
    ['an unknown frame type', JSON.stringify({ type: 'exec', cmd: 'touch /tmp/x' })],
    ['a hello from the hub', JSON.stringify({ type: 'hello', protocol: 1, agentVersion: 'x', instanceId: 'i', hostname: 'h', executors: [], lastEventSeq: 0 })],
  ];
  for (const [name, frame] of MALFORMED) {
    it(`${name}: the agent closes with 1002 and runs nothing`, async () => {
      expect(await deliverHostile(frame)).toBe(1002);
      expect(executed).toEqual([]);
    });
  }

  it('a well-formed command of an unknown type: answered unsupported, nothing run, the connection kept', async () => {
    // After the last case the agent is reconnecting: wait for its new connection to be welcomed.
    const ws = await until(() => client.state === 'online' && [...wss.clients].find((c) => c.readyState === c.OPEN), 15_000, 'reconnected');
    const unknown = command({ command: 'rm_rf' });
    const before = closes.length;
    ws.send(JSON.stringify(unknown));
    const answer = await until(() => received.find((f) => f.type === 'event' && f.commandId === unknown.id), 15_000, 'the answer');
    expect(answer).toMatchObject({ event: 'command_result', payload: { command: 'rm_rf', ok: false, code: 'unsupported' } });
    expect(received.find((f) => f.type === 'command_ack' && f.id === unknown.id)).toBeDefined();
    expect(executed).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(closes.length).toBe(before);
    expect(ws.readyState).toBe(ws.OPEN);
  });

  it('afterwards a well-formed command is run exactly once (the agent stayed consistent)', async () => {
    const ok = command();
    hostile = [JSON.stringify(ok)];
    for (const ws of wss.clients) ws.close(1000, 'next case');
    await until(() => executed.length > 0, 15_000, 'command run');
    expect(executed).toEqual([ok.id]);
    expect(ledger.command(ok.id as string)).toBeDefined();
  });
});
