import { afterAll, describe, expect, it } from 'vitest';
import { createDb, createNodeWithToken, enqueueCommand } from '@bria/core/db';
import { freePort, migrate, startEmbeddedPostgres } from '@bria/core/db/admin';
import { Hub } from '@bria/core/hub';
import { createLogger } from '@bria/core/log';
import { Agent } from '../agent.ts';
import { scratchDir } from '@bria/testkit/scratch';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function until<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

describe('hub across a Postgres restart', () => {
  it('re-opens its LISTEN connection and delivers commands written after the restart', async () => {
    // A private cluster: restarting the shared test cluster would disturb other test files.
    const dir = scratchDir('bria-pg-restart-');
    const port = await freePort();
    let pg = await startEmbeddedPostgres({ dir, port });
    cleanups.push(() => pg.stop());
    await migrate({ url: pg.url });
    const db = createDb(pg.url);
    cleanups.push(() => db.$disconnect());
    const { nodeId, token } = await createNodeWithToken(db, { name: 'pg-restart' });
    const hub = new Hub({ db, databaseUrl: pg.url, host: '127.0.0.1', port: 0, heartbeatMs: 500, log: createLogger({ name: 't', level: 'silent' }) });
    await hub.start();
    cleanups.push(() => hub.stop());
    const agent = new Agent(
      {
        hubUrl: `ws://127.0.0.1:${hub.port}/agent`,
        token,
        dir: scratchDir('bria-agent-'),
        claudeBin: '/nonexistent',
        codexBin: '/nonexistent',
        tmuxSocket: 'unused',
        logLevel: 'silent',
      },
      () => {},
    );
    await agent.start();
    cleanups.push(() => agent.stop());
    await until(async () => agent.client.state === 'online');

    await pg.stop();
    pg = await startEmbeddedPostgres({ dir, port });
    const id = await until(() => enqueueCommand(db, { nodeId, type: 'probe', payload: {} }));
    const result = await until(() => db.agentEvent.findFirst({ where: { nodeId, type: 'command_result' } }).then((r) => r ?? undefined));
    expect((result.payload as { commandId: string }).commandId).toBe(id);
    expect((await db.agentCommand.findUniqueOrThrow({ where: { id } })).status).toBe('acked');
  });
});
