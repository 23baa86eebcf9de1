import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createNodeWithToken } from '@bria/core/db';
import { Hub } from '@bria/core/hub';
import { createLogger } from '@bria/core/log';
import { readSessionJournal } from '../../../../packages/core/src/services/sessions/read-journal.ts';
import { fileDatabase } from '../../../../packages/testkit/src/file-database.ts';
import { Agent, AGENT_CAPABILITIES } from '../agent.ts';

/**
 * read_journal's hygiene against real Postgres, a real hub and (node A) the real agent:
 * a read leaves no row holding conversation text, a late answer to a withdrawn read is dropped,
 * an agent that does not list the capability is never sent the command, and an agent answers a
 * command type it does not know instead of dropping the connection.
 */
const CLAUDE_ID = '85c38f52-9a5b-4ae8-a3ae-a71190a8a108';
const fixture = new URL('../journal/fixtures/claude-session.jsonl', import.meta.url).pathname;
// Texts only a read of the fixture journal carries (a final and a later prompt; discovery reports neither).
const MARKERS = ['MOCK-SECOND-BLOCK-4', 'TWOBLOCKS please'];

const root = mkdtempSync(path.join(tmpdir(), 'bria-rjh-'));
const claudeHome = path.join(root, 'claude');
mkdirSync(path.join(claudeHome, 'projects', '-tmp-work'), { recursive: true });
copyFileSync(fixture, path.join(claudeHome, 'projects', '-tmp-work', `${CLAUDE_ID}.jsonl`));
const agentDir = path.join(root, 'agent');

const { tdb, db } = await fileDatabase();
let hub: Hub;
let agent: Agent;
const sockets: WebSocket[] = [];
const nodes: Record<'real' | 'old' | 'manual', { nodeId: string; token: string; sessionId: string }> = {} as never;

async function until<T>(fn: () => Promise<T> | T, ms: number, what: string): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every stored row (command payloads and results, event payloads) whose JSON holds `text`. */
async function rowsHolding(text: string): Promise<number> {
  const like = `%${text}%`;
  const r = await db.$queryRaw<{ n: number }[]>`
    select ((select count(*) from "AgentCommand" where payload::text like ${like} or coalesce(result::text, '') like ${like})
          + (select count(*) from "AgentEvent" where payload::text like ${like}))::int as n`;
  return r[0]!.n;
}

/** A hand-driven agent socket: says hello (with or without capabilities) and records every frame. */
async function rawAgent(token: string, capabilities?: string[]): Promise<{ ws: WebSocket; frames: Record<string, unknown>[] }> {
  const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${token}` } });
  sockets.push(ws);
  const frames: Record<string, unknown>[] = [];
  ws.on('message', (raw) => frames.push(JSON.parse(raw.toString()) as Record<string, unknown>));
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  ws.send(
    JSON.stringify({
      type: 'hello',
      protocol: 1,
      agentVersion: '0.0.9',
      instanceId: randomUUID(),
      hostname: 'h',
      executors: [],
      lastEventSeq: 0,
      ...(capabilities ? { capabilities } : {}),
    }),
  );
  await until(() => frames.find((f) => f.type === 'welcome'), 30_000, 'welcome');
  return { ws, frames };
}

async function addNode(name: string): Promise<{ nodeId: string; token: string; sessionId: string }> {
  const n = await createNodeWithToken(db, { name });
  const sessionId = randomUUID();
  await db.session.create({ data: { id: sessionId, nodeId: n.nodeId, executor: 'claude', folder: '/tmp/work', nativeSessionId: CLAUDE_ID, state: 'Ready' } });
  return { ...n, sessionId };
}

beforeAll(async () => {
  hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 1000, log: createLogger({ name: 't', level: 'silent' }) });
  await hub.start();
  nodes.real = await addNode('real');
  nodes.old = await addNode('old');
  nodes.manual = await addNode('manual');
  agent = new Agent(
    {
      hubUrl: `ws://127.0.0.1:${hub.port}/agent`,
      token: nodes.real.token,
      dir: agentDir,
      claudeBin: '/nonexistent',
      codexBin: '/nonexistent',
      tmuxSocket: `bria-rjh-${process.pid}`,
      logLevel: 'silent',
      cliEnv: { CLAUDE_CONFIG_DIR: claudeHome, CODEX_HOME: path.join(root, 'codex'), HOME: root },
    },
    () => {},
  );
  await agent.start();
  await until(async () => (await db.node.findUniqueOrThrow({ where: { id: nodes.real.nodeId } })).online, 15_000, 'agent online');
}, 60_000);
afterAll(async () => {
  for (const ws of sockets) ws.terminate();
  await agent?.stop();
  await hub?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('read_journal leaves nothing behind', () => {
  it('after reads through the real agent, no database row (nor the agent ledger) holds the conversation', async () => {
    const before = (await db.node.findUniqueOrThrow({ where: { id: nodes.real.nodeId } })).lastEventSeq;
    for (let i = 0; i < 3; i++) {
      const r = await readSessionJournal({ db }, { sessionId: nodes.real.sessionId });
      if (!r.available) throw new Error(`not available: ${r.reason} ${r.detail}`);
      // The answer really carried the texts looked for below.
      const all = JSON.stringify(r.turns);
      for (const m of MARKERS) expect(all).toContain(m);
    }
    expect(await db.agentCommand.count({ where: { type: 'read_journal' } })).toBe(0);
    for (const m of MARKERS) expect(await rowsHolding(m)).toBe(0);
    // The answers' seqs were consumed (acknowledged), so later events still follow contiguously.
    const after = (await db.node.findUniqueOrThrow({ where: { id: nodes.real.nodeId } })).lastEventSeq;
    expect(after - before).toBeGreaterThanOrEqual(3n);
    // The agent keeps no copy either: its command ledger records the read without the answer, and
    // the event file drops the answers once the hub acknowledged them.
    expect(readFileSync(path.join(agentDir, 'commands.jsonl'), 'utf8')).toContain('"read_journal"');
    for (const m of MARKERS) expect(readFileSync(path.join(agentDir, 'commands.jsonl'), 'utf8')).not.toContain(m);
    await until(() => MARKERS.every((m) => !readFileSync(path.join(agentDir, 'events.jsonl'), 'utf8').includes(m)), 30_000, 'event file compacted');
  }, 60_000);

  it("a late answer to a withdrawn read is not kept (and the node's event sequence goes on)", async () => {
    const { ws, frames } = await rawAgent(nodes.manual.token, ['read_journal']);
    const r = await readSessionJournal({ db }, { sessionId: nodes.manual.sessionId, timeoutMs: 1_500 });
    expect(r).toEqual({ available: false, reason: 'timeout', detail: null });
    const cmd = frames.find((f) => f.type === 'command' && f.command === 'read_journal');
    expect(cmd).toBeDefined();
    // Withdrawn: the row is gone, so it is not delivered again after a reconnect.
    expect(await db.agentCommand.count({ where: { id: cmd!.id as string } })).toBe(0);
    ws.send(JSON.stringify({ type: 'command_ack', id: cmd!.id }));
    ws.send(
      JSON.stringify({
        type: 'event',
        seq: 1,
        at: Date.now(),
        event: 'command_result',
        commandId: cmd!.id,
        payload: {
          command: 'read_journal',
          ok: true,
          source: 'native',
          journalPath: '/j',
          totalTurns: 1,
          offset: 0,
          turns: [{ index: 0, nativeRef: 'u', prompt: 'LATE-SECRET prompt', state: 'completed', final: 'LATE-SECRET final' }],
        },
      }),
    );
    await until(() => frames.find((f) => f.type === 'event_ack' && f.upTo === 1), 30_000, 'ack of the late answer');
    expect(await rowsHolding('LATE-SECRET')).toBe(0);
    // The next event of this node is stored as usual (the dropped answer left no gap).
    ws.send(JSON.stringify({ type: 'event', seq: 2, at: Date.now(), event: 'usage', payload: { marker: 'AFTER-LATE' } }));
    await until(() => frames.find((f) => f.type === 'event_ack' && f.upTo === 2), 30_000, 'ack of the next event');
    expect(await rowsHolding('AFTER-LATE')).toBe(1);
    expect((await db.node.findUniqueOrThrow({ where: { id: nodes.manual.nodeId } })).lastEventSeq).toBe(2n);
    ws.close();
  }, 90_000);

  it('a read_journal row a reader abandoned is swept by the next read on that node', async () => {
    // A retried attempt starts clean (a failed first attempt leaves its rows behind).
    await db.agentCommand.deleteMany({ where: { nodeId: nodes.manual.nodeId } });
    const { ws, frames } = await rawAgent(nodes.manual.token, ['read_journal']);
    const seq = Number(frames.find((f) => f.type === 'welcome')!.lastEventSeq) + 1;
    // As a reader that died mid-wait would leave it (its answer stored in the row).
    const stale = randomUUID();
    await db.agentCommand.create({
      data: {
        id: stale,
        nodeId: nodes.manual.nodeId,
        type: 'read_journal',
        payload: {},
        status: 'done',
        result: { marker: 'ABANDONED-TEXT' },
        createdAt: new Date(Date.now() - 11 * 60_000),
      },
    });
    expect(await rowsHolding('ABANDONED-TEXT')).toBe(1);
    const pending = readSessionJournal({ db }, { sessionId: nodes.manual.sessionId, timeoutMs: 30_000 });
    const cmd = await until(() => frames.find((f) => f.type === 'command' && f.command === 'read_journal'), 30_000, 'the read');
    ws.send(JSON.stringify({ type: 'command_ack', id: cmd.id }));
    ws.send(
      JSON.stringify({
        type: 'event',
        seq,
        at: Date.now(),
        event: 'command_result',
        commandId: cmd.id,
        payload: { command: 'read_journal', ok: false, code: 'not_found', error: 'none' },
      }),
    );
    expect(await pending).toEqual({ available: false, reason: 'not_written_yet', detail: null });
    expect(await rowsHolding('ABANDONED-TEXT')).toBe(0);
    expect(await db.agentCommand.count({ where: { nodeId: nodes.manual.nodeId } })).toBe(0);
    ws.close();
  }, 90_000);
});

describe('agents that do not know read_journal', () => {
  it('the hello capabilities reach the node row', async () => {
    expect((await db.node.findUniqueOrThrow({ where: { id: nodes.real.nodeId } })).agentCapabilities).toEqual([...AGENT_CAPABILITIES]);
    expect(AGENT_CAPABILITIES).toEqual([
      'read_journal',
      'answer_permission',
      'answer_dialog',
      'compact_context',
      'adopt_in_place',
      'git_worktree_add',
      'git_changes',
      'git_commit',
      'git_push',
      'git_finish',
      'handoff',
      'terminal',
    ]);
  });

  it('an agent whose hello lists no capabilities is never sent the command; the page is told its agent is too old', async () => {
    const { frames } = await rawAgent(nodes.old.token);
    expect((await db.node.findUniqueOrThrow({ where: { id: nodes.old.nodeId } })).agentCapabilities).toEqual([]);
    const r = await readSessionJournal({ db }, { sessionId: nodes.old.sessionId, timeoutMs: 2_000 });
    expect(r).toEqual({ available: false, reason: 'agent_too_old', detail: '0.0.9' });
    expect(await db.agentCommand.count({ where: { nodeId: nodes.old.nodeId } })).toBe(0);
    await new Promise((res) => setTimeout(res, 300));
    expect(frames.filter((f) => f.type === 'command')).toEqual([]);
  });

  it('the hub itself never sends such an agent a read_journal queued for its node (say, by a reader that checked before a downgrade)', async () => {
    const { frames } = await rawAgent(nodes.old.token);
    const id = randomUUID();
    const probe = randomUUID();
    await db.agentCommand.create({ data: { id, nodeId: nodes.old.nodeId, type: 'read_journal', payload: { executor: 'claude', nativeSessionId: CLAUDE_ID } } });
    await db.agentCommand.create({ data: { id: probe, nodeId: nodes.old.nodeId, type: 'probe', payload: {} } });
    await db.$executeRaw`select pg_notify('bria_agent_commands', ${nodes.old.nodeId})`;
    // The probe queued after it goes out: the flush ran and skipped only the read.
    await until(() => frames.find((f) => f.type === 'command' && f.id === probe), 30_000, 'the probe');
    expect(frames.filter((f) => f.type === 'command').map((f) => f.command)).toEqual(['probe']);
    expect((await db.agentCommand.findUniqueOrThrow({ where: { id } })).status).toBe('pending');
    await db.agentCommand.deleteMany({ where: { nodeId: nodes.old.nodeId } });
  });

  it('the real agent answers a command type it does not know as unsupported and keeps its connection', async () => {
    const node = () => db.node.findUniqueOrThrow({ where: { id: nodes.real.nodeId } });
    const connectedAt = (await node()).connectedAt;
    const states: string[] = [];
    agent.client.on('state', (s: string) => states.push(s));
    const id = randomUUID();
    await db.agentCommand.create({ data: { id, nodeId: nodes.real.nodeId, type: 'read_minds', payload: { x: 1 } } });
    await db.$executeRaw`select pg_notify('bria_agent_commands', ${nodes.real.nodeId})`;
    const ev = await until(() => db.agentEvent.findFirst({ where: { commandId: id, type: 'command_result' } }), 30_000, 'the answer');
    expect((ev.payload as { data: unknown }).data).toMatchObject({ command: 'read_minds', ok: false, code: 'unsupported' });
    expect((await db.agentCommand.findUniqueOrThrow({ where: { id } })).status).toBe('acked');
    // Still the same connection: no reconnect, no new hello.
    await new Promise((res) => setTimeout(res, 500));
    expect(states).toEqual([]);
    expect(agent.client.state).toBe('online');
    expect((await node()).connectedAt).toEqual(connectedAt);
    // And it still reads journals on that connection.
    expect((await readSessionJournal({ db }, { sessionId: nodes.real.sessionId })).available).toBe(true);
  }, 90_000);
});
