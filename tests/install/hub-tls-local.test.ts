import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNodeWithToken } from '../../packages/core/src/db/repos/nodes.ts';
import { Hub } from '../../packages/core/src/hub/server.ts';
import { createLogger } from '../../packages/core/src/log.ts';
import { fileDatabase } from '../../packages/testkit/src/file-database.ts';
import { scratchDir } from '../../packages/testkit/src/scratch.ts';
import { waitUntil } from '../../packages/testkit/src/wait.ts';
import { Ledger } from '../../apps/node-agent/src/ledger/ledger.ts';
import { HubClient } from '../../apps/node-agent/src/hub-client/hub-client.ts';

/**
 * `npm start` with BRIA_TLS_CERT: the certificate names the server's public name only, yet this
 * computer's agent (wss://127.0.0.1 with BRIA_AGENT_CA) and the dashboard's hub health check
 * (https://127.0.0.1 with BRIA_HUB_CA) reach the hub: the chain is checked, the name not, on
 * loopback only. Without the certificate trusted, neither does.
 */
const { tdb, db } = await fileDatabase();
const dir = scratchDir('bria-tls-local-');
const cert = path.join(dir, 'cert.pem');
const key = path.join(dir, 'key.pem');
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
    '/CN=bria.example.net',
    '-addext',
    'subjectAltName=DNS:bria.example.net',
  ],
  { stdio: 'ignore' },
);
let hub: Hub;
const clients: HubClient[] = [];

beforeAll(async () => {
  hub = new Hub({
    db,
    databaseUrl: tdb.url,
    host: '127.0.0.1',
    port: 0,
    heartbeatMs: 1000,
    log: createLogger({ name: 't', level: 'silent' }),
    tls: { cert: readFileSync(cert), key: readFileSync(key) },
  });
  await hub.start();
});
afterAll(async () => {
  for (const c of clients) await c.stop();
  await hub?.stop();
  vi.unstubAllEnvs();
});

async function dashboardHealth(ca: string | undefined): Promise<{ hub: boolean }> {
  vi.resetModules();
  vi.stubEnv('DATABASE_URL', tdb.url);
  vi.stubEnv('BRIA_HUB_HEALTH_URL', `https://127.0.0.1:${hub.port}/health`);
  vi.stubEnv('BRIA_HUB_CA', ca ?? '');
  vi.stubEnv('LOG_LEVEL', 'silent');
  const { GET } = (await import('../../apps/web/src/app/api/health/route.ts')) as { GET: () => Promise<Response> };
  return (await (await GET()).json()) as { hub: boolean };
}

describe('TLS on this computer', () => {
  it("the dashboard's health check sees the TLS hub on 127.0.0.1 with its certificate trusted, not without", async () => {
    expect(await dashboardHealth(cert)).toMatchObject({ hub: true });
    expect(await dashboardHealth(undefined)).toMatchObject({ hub: false });
  });

  it("this computer's agent connects to wss://127.0.0.1 trusting the certificate, though it names another host", async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: 'local tls' });
    const c = new HubClient({
      url: `wss://127.0.0.1:${hub.port}/agent`,
      token,
      ca: readFileSync(cert),
      ledger: new Ledger(scratchDir('bria-tls-local-agent-'), () => randomUUID()),
      hello: () => ({ agentVersion: '0.1.0', hostname: 'h', executors: [] }),
      onCommand: async () => ({ ok: true }),
      log: () => {},
    });
    clients.push(c);
    c.start();
    await waitUntil('online', async () => c.state === 'online' && (await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online, 15_000);
  });
});
