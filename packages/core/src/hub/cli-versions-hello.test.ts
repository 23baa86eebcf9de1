import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createNodeWithToken } from '../db/repos/nodes.ts';
import { VERIFIED_CLI_VERSIONS } from '../domain/cli-versions.ts';
import { createLogger } from '../log.ts';
import { listDashboardNodes } from '../services/nodes/list-dashboard-nodes.ts';
import { waitUntil } from '../../../testkit/src/wait.ts';
import { fileDatabase } from '../../../testkit/src/file-database.ts';
import { Hub } from './server.ts';

/** An agent's hello names each CLI's `--version`; the hub keeps the versions and the card says which are not verified. */
const { db, tdb } = await fileDatabase();
const hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 60_000, log: createLogger({ name: 't', level: 'silent' }) });
await hub.start();
const sockets: WebSocket[] = [];
afterAll(async () => {
  for (const ws of sockets) ws.terminate();
  await hub.stop();
});

async function hello(token: string, executors: { executor: 'claude' | 'codex'; available: boolean; version?: string }[]): Promise<void> {
  const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
  sockets.push(ws);
  const welcomed = new Promise<void>((r) =>
    ws.on('message', (raw) => {
      if ((JSON.parse(raw.toString()) as { type?: string }).type === 'welcome') r();
    }),
  );
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  ws.send(JSON.stringify({ type: 'hello', protocol: 1, agentVersion: '0.1.0', instanceId: randomUUID(), hostname: 'h', executors, lastEventSeq: 0 }));
  await welcomed;
}

describe('hub: CLI versions from the hello', () => {
  it('stores each runnable CLI version and lists an unverified one as such, with the verified ones', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: `cli-versions-${randomUUID().slice(0, 8)}` });
    await hello(token, [
      { executor: 'claude', available: true, version: '2.1.300 (Claude Code)' },
      { executor: 'codex', available: true, version: `codex-cli ${VERIFIED_CLI_VERSIONS.codex.at(-1)}` },
    ]);
    const row = await db.node.findUniqueOrThrow({ where: { id: nodeId }, select: { executorVersions: true } });
    expect(row.executorVersions).toEqual(['claude:2.1.300', `codex:${VERIFIED_CLI_VERSIONS.codex.at(-1)}`]);

    const card = (await listDashboardNodes({ db })).find((n) => n.id === nodeId);
    expect(card?.cliVersions).toEqual([
      { executor: 'claude', version: '2.1.300', verified: false, verifiedVersions: [...VERIFIED_CLI_VERSIONS.claude] },
      { executor: 'codex', version: VERIFIED_CLI_VERSIONS.codex.at(-1), verified: true, verifiedVersions: [...VERIFIED_CLI_VERSIONS.codex] },
    ]);
    // Not refused: the unverified CLI is still installed and offered.
    expect(card?.installedExecutors).toEqual(['claude', 'codex']);
  }, 30_000);

  it('replaces the versions on the next hello (a CLI gone is no longer listed)', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: `cli-versions-${randomUUID().slice(0, 8)}` });
    await hello(token, [
      { executor: 'claude', available: true, version: '2.1.195 (Claude Code)' },
      { executor: 'codex', available: true, version: 'codex-cli 0.1.0' },
    ]);
    await hello(token, [
      { executor: 'claude', available: true, version: '2.1.196 (Claude Code)' },
      { executor: 'codex', available: false },
    ]);
    await waitUntil(
      'the second hello stored',
      async () => (await db.node.findUniqueOrThrow({ where: { id: nodeId }, select: { executorVersions: true } })).executorVersions.join() === 'claude:2.1.196',
      15_000,
      25,
    );
    const card = (await listDashboardNodes({ db })).find((n) => n.id === nodeId);
    expect(card?.cliVersions.map((c) => [c.executor, c.version, c.verified])).toEqual([['claude', '2.1.196', true]]);
  }, 30_000);
});
