import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { Ledger } from '../ledger/ledger.ts';
import { HubClient } from './hub-client.ts';

// A stop that lands while a command runs: the command's answer is recorded if it ends within the
// grace; one that ends later writes nothing (its folder may be gone) and stays `received`, so the
// next start answers it as interrupted.
const servers: WebSocketServer[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function fakeHub(): Promise<{ url: string; connected: Promise<WebSocket> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  servers.push(wss);
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const connected = new Promise<WebSocket>((resolve) => {
    wss.on('connection', (ws) => {
      ws.once('message', () => {
        ws.send(JSON.stringify({ type: 'welcome', nodeId: randomUUID(), nodeName: 'n', heartbeatMs: 60_000, lastEventSeq: 0 }));
        resolve(ws);
      });
    });
  });
  const { port } = wss.address() as { port: number };
  return { url: `ws://127.0.0.1:${port}/agent`, connected };
}

function rig(url: string, graceMs: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'bria-stop-running-'));
  const ledger = new Ledger(dir, () => 'instance-1');
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const logs: string[] = [];
  const c = new HubClient({
    url,
    token: 't',
    ledger,
    stopGraceMs: graceMs,
    log: (_level, msg) => logs.push(msg),
    hello: () => ({ agentVersion: '0', hostname: 'h', executors: [] }),
    onCommand: async () => {
      started();
      await gate;
      return { ok: true };
    },
  });
  return { dir, ledger, c, running, release, logs };
}

const command = (id: string) => JSON.stringify({ type: 'command', id, command: 'probe', payload: {}, issuedAt: Date.now() });

describe('stopping the agent while a command runs', () => {
  it('waits for a command that ends within the grace and records its answer', async () => {
    const hub = await fakeHub();
    const r = rig(hub.url, 30_000);
    r.c.start();
    const id = randomUUID();
    (await hub.connected).send(command(id));
    await r.running;
    let stopped = false;
    const stopping = r.c.stop().then(() => {
      stopped = true;
    });
    await new Promise((res) => setImmediate(res));
    expect(stopped).toBe(false);
    r.release();
    await stopping;
    expect(r.ledger.command(id)?.status).toBe('done');
    expect(r.ledger.unacked().map((e) => [e.event, e.commandId])).toEqual([['command_result', id]]);
    rmSync(r.dir, { recursive: true, force: true });
  });

  it('a command that outlives the grace writes nothing after stop and is answered as interrupted at the next start', async () => {
    const hub = await fakeHub();
    const r = rig(hub.url, 50);
    r.c.start();
    const id = randomUUID();
    (await hub.connected).send(command(id));
    await r.running;
    await r.c.stop();
    // The test server removes the agent's folder, as a test's teardown does.
    rmSync(r.dir, { recursive: true, force: true });
    r.release();
    await new Promise((res) => setImmediate(res));
    await new Promise((res) => setImmediate(res));
    expect(r.logs).toContain('agent.command_after_stop');
    expect(r.ledger.command(id)?.status).toBe('received');
  });
});
