import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createNodeWithToken } from '@bria/core/db';
import { Hub } from '@bria/core/hub';
import { createLogger } from '@bria/core/log';
import { claudeBin } from '@bria/testkit/cli-homes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../../packages/core/src/services/sessions/create-session.ts';
import { newSessionOptions } from '../../../packages/core/src/services/sessions/session-view.ts';
import { fileDatabase } from '../../../packages/testkit/src/file-database.ts';
import { Agent } from './agent.ts';

// A computer without `codex`: the real agent probes the CLIs, its hello says so, the hub stores it,
// and the service that creates sessions refuses Codex there with the reason.

const root = mkdtempSync(path.join(tmpdir(), 'bria-missing-exec-'));
const { tdb, db } = await fileDatabase();
let hub: Hub;
let agent: Agent;
let nodeId: string;

async function until<T>(fn: () => Promise<T> | T, ms: number, what: string): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 1000, log: createLogger({ name: 't', level: 'silent' }) });
  await hub.start();
  const n = await createNodeWithToken(db, { name: 'no-codex' });
  nodeId = n.nodeId;
  agent = new Agent(
    {
      hubUrl: `ws://127.0.0.1:${hub.port}/agent`,
      token: n.token,
      dir: path.join(root, 'agent'),
      claudeBin,
      codexBin: path.join(root, 'no', 'codex'),
      tmuxSocket: `bria-missing-exec-${process.pid}`,
      logLevel: 'silent',
      cliEnv: { CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex'), HOME: root },
    },
    () => {},
  );
  await agent.start();
  await until(async () => (await db.node.findUniqueOrThrow({ where: { id: nodeId } })).online, 30_000, 'agent online');
}, 60_000);
afterAll(async () => {
  await agent?.stop();
  await hub?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('an executor the node cannot run', () => {
  it('is stored from the hello, listed as missing for the new-session page, and refused by createSession with the reason', async () => {
    expect((await db.node.findUniqueOrThrow({ where: { id: nodeId } })).missingExecutors).toEqual(['codex']);
    const opts = await newSessionOptions({ db }, { nodeId });
    expect(opts.node).toMatchObject({ enabledExecutors: ['claude', 'codex'], missingExecutors: ['codex'] });
    await expect(createSession({ db }, { nodeId, executor: 'codex', folder: root })).rejects.toMatchObject({
      code: 'EXECUTOR_DISABLED',
      userMessage: 'sessions.executor_missing.codex',
    });
    expect(await db.session.count()).toBe(0);
    expect(await db.agentCommand.count({ where: { type: 'start_session' } })).toBe(0);
  });
});
