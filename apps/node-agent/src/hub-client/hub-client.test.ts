import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createNodeWithToken, enqueueCommand, revokeAgentToken } from '@bria/core/db';
import { freePort } from '@bria/core/db/admin';
import { Hub } from '@bria/core/hub';
import { createLogger } from '@bria/core/log';
import { fileDatabase } from '../../../../packages/testkit/src/file-database.ts';
import { Agent } from '../agent.ts';
import { scratchDir } from '@bria/testkit/scratch';

const silent = createLogger({ name: 'test', level: 'silent' });
const { tdb, db } = await fileDatabase();
const hubs: Hub[] = [];
const agents: Agent[] = [];

afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop();
  for (const h of hubs.splice(0)) await h.stop();
});

async function startHub(port = 0, heartbeatMs = 300): Promise<Hub> {
  const hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port, heartbeatMs, log: silent });
  await hub.start();
  hubs.push(hub);
  return hub;
}

function startAgent(port: number, token: string, dir = scratchDir('bria-agent-')): Agent {
  const agent = new Agent(
    {
      hubUrl: `ws://127.0.0.1:${port}/agent`,
      token,
      dir,
      claudeBin: '/nonexistent/claude',
      codexBin: '/nonexistent/codex',
      tmuxSocket: 'unused',
      logLevel: 'silent',
    },
    () => {},
  );
  agents.push(agent);
  void agent.start();
  return agent;
}

async function until<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

const nodeRow = (id: string) => db.node.findUniqueOrThrow({ where: { id } });

describe('hub ⇄ agent', () => {
  it('an agent with a valid token brings its node online; heartbeats keep lastSeenAt fresh', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: 'laptop' });
    const hub = await startHub();
    const agent = startAgent(hub.port, token);
    await until(async () => (await nodeRow(nodeId)).online);
    const first = (await nodeRow(nodeId)).lastSeenAt!;
    expect(agent.client.state).toBe('online');
    expect(agent.client.nodeId).toBe(nodeId);
    await until(async () => (await nodeRow(nodeId)).lastSeenAt!.getTime() > first.getTime());
    const row = await nodeRow(nodeId);
    expect(row.agentVersion).toBe('0.1.0');
    expect(row.hostname).toBeTruthy();
  });

  it('refuses a wrong token with a clear message and does not retry quickly', async () => {
    const hub = await startHub();
    const agent = startAgent(hub.port, 'bria_agent_not-a-real-token-at-all');
    const message = await new Promise<string>((resolve) => agent.client.once('refused', resolve));
    expect(message).toMatch(/Unknown agent token/);
    const states: string[] = [];
    agent.client.on('state', (s: string) => states.push(s));
    await new Promise((r) => setTimeout(r, 1500));
    expect(states).not.toContain('connecting');
    expect(agent.client.state).toBe('refused');
  });

  it('marks a silent agent offline after heartbeat loss, and online again when it reconnects', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: 'silent' });
    const hub = await startHub(0, 200);
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
    ws.on('open', () =>
      ws.send(JSON.stringify({ type: 'hello', protocol: 1, agentVersion: 'x', instanceId: 'i', hostname: 'h', executors: [], lastEventSeq: 0 })),
    );
    // This client never answers pings: a stand-in for a frozen or cut-off agent.
    ws.on('ping', () => {});
    await until(async () => (await nodeRow(nodeId)).online);
    const closed = new Promise((r) => ws.on('close', r));
    await closed;
    await until(async () => !(await nodeRow(nodeId)).online, 5_000);
    expect((await nodeRow(nodeId)).disconnectedAt).toBeInstanceOf(Date);
    startAgent(hub.port, token);
    await until(async () => (await nodeRow(nodeId)).online);
  });

  it('survives a hub restart: events written while the hub is away arrive once, commands run once', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: 'restart' });
    const port = await freePort();
    let hub = await startHub(port);
    const dir = scratchDir('bria-agent-');
    const agent = startAgent(port, token, dir);
    await until(async () => (await nodeRow(nodeId)).online);
    agent.client.emitUnchecked({ event: 'test_marker', payload: { n: 1 } });
    await hub.stop();
    hubs.splice(hubs.indexOf(hub), 1);
    expect((await nodeRow(nodeId)).online).toBe(false);
    agent.client.emitUnchecked({ event: 'test_marker', payload: { n: 2 } });
    agent.client.emitUnchecked({ event: 'test_marker', payload: { n: 3 } });
    hub = await startHub(port);
    await until(async () => (await nodeRow(nodeId)).online, 15_000);
    const events = await until(async () => {
      const rows = await db.agentEvent.findMany({ where: { nodeId, type: 'test_marker' }, orderBy: { seq: 'asc' } });
      return rows.length === 3 ? rows : undefined;
    });
    expect(events.map((e) => (e.payload as { data: { n: number } }).data.n)).toEqual([1, 2, 3]);

    const id = await enqueueCommand(db, { nodeId, type: 'probe', payload: {} });
    const result = await until(() => db.agentEvent.findFirst({ where: { nodeId, type: 'command_result' } }).then((r) => r ?? undefined));
    expect((result.payload as { commandId: string }).commandId).toBe(id);
    expect((await db.agentCommand.findUniqueOrThrow({ where: { id } })).status).toBe('acked');
    // The hub re-sends it (as after a lost ack): the agent answers from its ledger, runs nothing.
    await db.agentCommand.update({ where: { id }, data: { status: 'pending' } });
    await hub.flushCommands(nodeId);
    await until(async () => (await db.agentCommand.findUniqueOrThrow({ where: { id } })).status === 'acked');
    await new Promise((r) => setTimeout(r, 300));
    expect(await db.agentEvent.count({ where: { nodeId, type: 'command_result' } })).toBe(1);
  });

  it('disconnects an agent at once when its token is revoked', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: 'revoked' });
    const hub = await startHub();
    const agent = startAgent(hub.port, token);
    await until(async () => (await nodeRow(nodeId)).online);
    const tok = await db.agentToken.findFirstOrThrow({ where: { nodeId } });
    await revokeAgentToken(db, tok.id);
    await until(async () => agent.client.state === 'refused', 5_000);
    await until(async () => !(await nodeRow(nodeId)).online, 5_000);
  });

  it('closes a connection that sends a malformed frame, without touching the node record', async () => {
    const { nodeId, token } = await createNodeWithToken(db, { name: 'malformed' });
    const hub = await startHub();
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
    await new Promise((r) => ws.on('open', r));
    ws.send('{"type":"hello","protocol":1,"agentVersion":');
    const code = await new Promise<number>((r) => ws.on('close', (c) => r(c)));
    expect(code).toBe(1002);
    expect((await nodeRow(nodeId)).agentVersion).toBeNull();
  });
});
