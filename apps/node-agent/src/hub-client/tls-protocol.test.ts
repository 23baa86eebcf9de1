import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { get as httpsGet } from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { createNodeWithToken } from '@bria/core/db';
import { Hub } from '@bria/core/hub';
import { createLogger } from '@bria/core/log';
import { CloseCode, PROTOCOL_MISMATCH_DELAY_MS } from '@bria/core/protocol';
import { scratchDir } from '@bria/testkit/scratch';
import { waitUntil } from '@bria/testkit/wait';
import { protocolMismatch } from '../../../../packages/core/src/hub/protocol-check.ts';
import { fileDatabase } from '../../../../packages/testkit/src/file-database.ts';
import { Ledger } from '../ledger/ledger.ts';
import { HubClient } from './hub-client.ts';

/**
 * The hub with a certificate (BRIA_TLS_CERT / BRIA_TLS_KEY): agents connect with wss:// and
 * download the agent over https:// on the same port, trusting a self-signed certificate only when
 * told (--ca). And an agent and a hub of different protocol versions refuse each other plainly.
 */
const { tdb, db } = await fileDatabase();
const silent = createLogger({ name: 't', level: 'silent' });
const dir = scratchDir('bria-tls-');
const cert = path.join(dir, 'cert.pem');
const key = path.join(dir, 'key.pem');
// A self-signed certificate for this computer's names, made here (openssl).
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ],
  { stdio: 'ignore' },
);
const bundleDir = path.join(dir, 'dist');
mkdirSync(bundleDir);
const bundleBody = Buffer.from('// a stand-in agent file\n');
const bundleSha = createHash('sha256').update(bundleBody).digest('hex');
writeFileSync(path.join(bundleDir, 'bria-agent.mjs'), bundleBody);
writeFileSync(path.join(bundleDir, 'latest.json'), JSON.stringify({ version: '0.1.0-0000abcd', sha256: bundleSha, bytes: bundleBody.length }));

let hub: Hub;
const clients: HubClient[] = [];
const servers: (Server | WebSocketServer)[] = [];

function client(url: string, token: string, o: { ca?: Buffer } = {}) {
  const lines: string[] = [];
  const c = new HubClient({
    url,
    token,
    ledger: new Ledger(scratchDir('bria-tls-agent-'), () => randomUUID()),
    hello: () => ({ agentVersion: '0.1.0-0000abcd', hostname: 'h', executors: [] }),
    onCommand: async () => ({ ok: true }),
    log: (_level, msg, fields) => lines.push(`${msg} ${fields ? JSON.stringify(fields) : ''}`),
    ...o,
  });
  clients.push(c);
  c.start();
  return { c, lines };
}

beforeAll(async () => {
  hub = new Hub({
    db,
    databaseUrl: tdb.url,
    host: '127.0.0.1',
    port: 0,
    heartbeatMs: 1000,
    log: silent,
    tls: { cert: readFileSync(cert), key: readFileSync(key) },
    agentBundleDir: bundleDir,
  });
  await hub.start();
});
afterAll(async () => {
  for (const c of clients) await c.stop();
  for (const s of servers) s.close();
  await hub?.stop();
});

describe('TLS', () => {
  it('an agent trusting the certificate (--ca) connects with wss:// and the bundle downloads over https on the same port', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: 'tls' });
    const { c } = client(`wss://localhost:${hub.port}/agent`, token, { ca: readFileSync(cert) });
    await waitUntil('online over TLS', async () => c.state === 'online' && (await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online, 15_000);
    const body = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      httpsGet(`https://localhost:${hub.port}/agent/latest.json`, { ca: readFileSync(cert) }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      }).on('error', reject);
    });
    expect(body.status).toBe(200);
    expect(JSON.parse(body.text)).toEqual({
      version: '0.1.0-0000abcd',
      sha256: bundleSha,
      url: `https://localhost:${hub.port}/agent/bria-agent-0.1.0-0000abcd.mjs`,
    });
  });

  it('an agent that does not trust it never connects, and says why', async () => {
    const { token } = await createNodeWithToken(db, { name: 'untrusting' });
    const { c, lines } = client(`wss://localhost:${hub.port}/agent`, token);
    await waitUntil('the refusal logged', async () => lines.find((l) => l.includes('Cannot reach the hub') && /self[- ]signed/i.test(l)), 15_000);
    expect(c.state).not.toBe('online');
  });

  it('plain ws:// to a TLS hub gets no connection', async () => {
    const { token } = await createNodeWithToken(db, { name: 'plain' });
    const { c } = client(`ws://127.0.0.1:${hub.port}/agent`, token);
    await waitUntil('a retry scheduled', async () => c.retryDelayMs !== undefined, 15_000);
    expect(c.state).not.toBe('online');
  });
});

describe('protocol versions', () => {
  const mismatchBody = protocolMismatch(2)!;

  it('the hub refuses another protocol at the upgrade (426) and at hello (refused + close 4010), naming both versions', async () => {
    const { token } = await createNodeWithToken(db, { name: 'p2' });
    const url = `wss://localhost:${hub.port}/agent`;
    const upgrade = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}`, 'x-bria-protocol': '2' }, ca: readFileSync(cert) });
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.on('open', () => reject(new Error('opened')));
      ws.on('error', () => {});
    });
    expect(upgrade.status).toBe(426);
    expect(JSON.parse(upgrade.body)).toEqual({ code: 'protocol_mismatch', message: mismatchBody.message, retryAfterMs: PROTOCOL_MISMATCH_DELAY_MS });
    expect(mismatchBody.message).toContain('This agent speaks protocol 2 and the hub protocol 1');

    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, ca: readFileSync(cert) });
    const frames: { type?: string; code?: string; message?: string }[] = [];
    ws.on('message', (raw) => frames.push(JSON.parse(raw.toString())));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'hello', protocol: 2, agentVersion: '9.0.0', instanceId: randomUUID(), hostname: 'h', executors: [], lastEventSeq: 0 }));
    const code = await new Promise<number>((r) => ws.once('close', (c) => r(c)));
    expect(code).toBe(CloseCode.protocolMismatch);
    expect(frames).toEqual([{ type: 'refused', code: 'protocol', message: mismatchBody.message, retryAfterMs: PROTOCOL_MISMATCH_DELAY_MS }]);
  });

  // Stand-ins for a hub of protocol 2 answering as this code does (the protocol is a constant of the build).
  it('the agent says why, stops, and asks again only after 10 minutes (upgrade refused)', async () => {
    let attempts = 0;
    const body = JSON.stringify({
      code: 'protocol_mismatch',
      message: 'This agent speaks protocol 1 and the hub protocol 2 (the agent is older). Update the agent.',
      retryAfterMs: PROTOCOL_MISMATCH_DELAY_MS,
    });
    const server = createServer();
    server.on('upgrade', (_req, socket) => {
      attempts += 1;
      socket.end(
        `HTTP/1.1 426 Upgrade Required\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { c, lines } = client(`ws://127.0.0.1:${(server.address() as { port: number }).port}/agent`, 'bria_agent_0123456789');
    await waitUntil('refused', async () => c.state === 'refused' && c.retryDelayMs !== undefined, 15_000);
    expect(lines.find((l) => l.startsWith("The hub refused this agent's protocol version 1: This agent speaks protocol 1 and the hub protocol 2"))).toMatch(
      /Trying again in 10 minutes/,
    );
    expect(c.retryDelayMs).toBe(PROTOCOL_MISMATCH_DELAY_MS);
    expect(attempts).toBe(1);
  });

  it('the agent says why and waits 10 minutes after a refused hello (close 4010)', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    servers.push(wss);
    await new Promise((r) => wss.once('listening', r));
    wss.on('connection', (ws) =>
      ws.once('message', () => {
        ws.send(
          JSON.stringify({
            type: 'refused',
            code: 'protocol',
            message: 'This agent speaks protocol 1 and the hub protocol 2 (the agent is older).',
            retryAfterMs: PROTOCOL_MISMATCH_DELAY_MS,
          }),
        );
        ws.close(CloseCode.protocolMismatch, 'protocol mismatch');
      }),
    );
    const { c, lines } = client(`ws://127.0.0.1:${(wss.address() as { port: number }).port}/agent`, 'bria_agent_0123456789');
    await waitUntil('retry scheduled', async () => c.retryDelayMs !== undefined, 15_000);
    expect(c.retryDelayMs).toBe(PROTOCOL_MISMATCH_DELAY_MS);
    expect(c.state).toBe('refused');
    expect(lines.some((l) => l.includes('the hub protocol 2 (the agent is older)'))).toBe(true);
  });
});
