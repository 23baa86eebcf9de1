import { createHash } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createNodeWithToken, findNodeByToken } from '../../../db/repos/nodes.ts';
import { Hub } from '../../../hub/server.ts';
import { createLogger } from '../../../log.ts';
import { CloseCode } from '../../../protocol/index.ts';
import { createCaller } from '../../app-router.ts';
import { createContextInner } from '../../context.ts';
import { installCommand } from '../../../services/nodes/install-command.ts';
import { callerFor, signedInCaller, TEST_AGENT_BUNDLE } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

const { db, tdb } = await fileDatabase();

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const HUB = 'ws://203.0.113.7:3001/agent';

async function trpcCode(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof TRPCError)) throw new Error(`expected a TRPCError, got ${String(e)}`);
  return e.code;
}

describe('nodes router: access', () => {
  it('refuses every nodes call without a session, and changes nothing', async () => {
    const anon = createCaller(createContextInner({ db }));
    const { caller: cookieless } = await callerFor(db, null, { csrf: 'whatever' });
    for (const c of [anon, cookieless]) {
      expect(await trpcCode(c.nodes.list())).toBe('UNAUTHORIZED');
      expect(await trpcCode(c.nodes.addComputer({ name: 'x' }))).toBe('UNAUTHORIZED');
    }
    expect(await db.node.count({ where: { name: 'x' } })).toBe(0);
  });

  it('refuses mutations without the right CSRF token, but allows queries', async () => {
    const { web } = await signedInCaller(db);
    for (const csrf of [null, 'wrong', `${web.csrfToken}x`]) {
      const { caller } = await callerFor(db, web, { csrf });
      expect(await trpcCode(caller.nodes.addComputer({ name: 'forged' }))).toBe('FORBIDDEN');
      expect((await caller.nodes.list()).nodes).toBeInstanceOf(Array);
    }
    expect(await db.node.count({ where: { name: 'forged' } })).toBe(0);
  });
});

describe('nodes router: computers and tokens', () => {
  it('adds a computer: the token is shown once, stored hashed, and the command is exact', async () => {
    const { caller } = await signedInCaller(db, { hubPublicUrl: HUB });
    const added = await caller.nodes.addComputer({ name: '  studio mac  ' });
    expect(added.name).toBe('studio mac');
    // The one-line install for that computer, with --insecure said since HUB is plain ws:// to another host.
    expect(added.command).toBe(installCommand({ hubUrl: HUB, bundle: TEST_AGENT_BUNDLE, token: added.token, insecure: true }));
    expect(added.command).toContain(`/agent/bria-agent-${TEST_AGENT_BUNDLE.version}.mjs`);
    const rows = await db.agentToken.findMany({ where: { nodeId: added.nodeId } });
    expect(rows.map((r) => r.tokenHash)).toEqual([sha(added.token)]);
    expect(JSON.stringify(rows)).not.toContain(added.token);
    expect(await findNodeByToken(db, added.token)).toMatchObject({ nodeId: added.nodeId, revoked: false });

    const { nodes } = await caller.nodes.list();
    const node = nodes.find((n) => n.id === added.nodeId);
    expect(node).toMatchObject({ name: 'studio mac', online: false, lastSeenAt: null, openSessions: 0, enabledExecutors: ['claude', 'codex'] });
    // Enabled by default, but nothing is known to be installed until its agent reports (issue 31, defect 9).
    expect(node?.installedExecutors).toBeNull();
    expect(node?.tokens).toHaveLength(1);
    expect(JSON.stringify(nodes)).not.toContain(added.token);
  });

  it('lists online state, last seen, agent version and open sessions from the database', async () => {
    const { nodeId } = await createNodeWithToken(db, { name: 'box', isLocal: true });
    const seen = new Date('2026-12-02T09:30:00Z');
    await db.node.update({ where: { id: nodeId }, data: { online: true, lastSeenAt: seen, agentVersion: '9.9.9' } });
    for (const [i, state] of (['Ready', 'Running', 'Archived'] as const).entries()) {
      await db.session.create({ data: { id: crypto.randomUUID(), nodeId, executor: 'claude', folder: '/w', nativeSessionId: `n${i}`, state } });
    }
    const { caller } = await signedInCaller(db);
    const { nodes } = await caller.nodes.list();
    expect(nodes[0]).toMatchObject({ id: nodeId, isLocal: true, online: true, lastSeenAt: seen.toISOString(), agentVersion: '9.9.9', openSessions: 2 });
  });

  it("says when a computer's remote answers are off, and why (its agent's hello)", async () => {
    const { nodeId: off } = await createNodeWithToken(db, { name: 'off-box' });
    const { nodeId: on } = await createNodeWithToken(db, { name: 'on-box' });
    await db.node.update({ where: { id: off }, data: { agentCapabilities: ['answer_permission', 'remote_answers_off:folder_not_private'] } });
    await db.node.update({ where: { id: on }, data: { agentCapabilities: ['answer_permission', 'handoff'] } });
    const { caller } = await signedInCaller(db);
    const { nodes } = await caller.nodes.list();
    expect(nodes.find((n) => n.id === off)?.remoteAnswersOff).toBe('folder_not_private');
    expect(nodes.find((n) => n.id === on)?.remoteAnswersOff).toBeNull();
  });

  it('says which agents are older than the bundle this server hands out, with the update command for another computer', async () => {
    const { caller } = await signedInCaller(db, { hubPublicUrl: 'wss://bria.example.net:3001/agent' });
    const old = await createNodeWithToken(db, { name: 'old agent' });
    const current = await createNodeWithToken(db, { name: 'current agent' });
    const source = await createNodeWithToken(db, { name: 'from a checkout' });
    await db.node.update({ where: { id: old.nodeId }, data: { agentVersion: '0.1.0-11111111' } });
    await db.node.update({ where: { id: current.nodeId }, data: { agentVersion: TEST_AGENT_BUNDLE.version } });
    await db.node.update({ where: { id: source.nodeId }, data: { agentVersion: '0.1.0' } });
    const { nodes } = await caller.nodes.list();
    const by = (id: string) => nodes.find((n) => n.id === id)!;
    expect(by(old.nodeId)).toMatchObject({ agentOutdated: true });
    expect(by(old.nodeId).updateCommand).toContain(`'https://bria.example.net:3001/agent/bria-agent-${TEST_AGENT_BUNDLE.version}.mjs'`);
    expect(by(old.nodeId).updateCommand).toContain(TEST_AGENT_BUNDLE.sha256);
    expect(by(current.nodeId)).toMatchObject({ agentOutdated: false, updateCommand: null });
    expect(by(source.nodeId)).toMatchObject({ agentOutdated: false, updateCommand: null });
    // Without a built bundle nothing is called outdated, and adding a computer says why it cannot.
    const { caller: unbuilt } = await signedInCaller(db, { agentBundle: () => null });
    expect((await unbuilt.nodes.list()).nodes.find((n) => n.id === old.nodeId)).toMatchObject({ agentOutdated: false, updateCommand: null });
    const before = await db.node.count();
    expect(await trpcCode(unbuilt.nodes.addComputer({ name: 'no bundle' }))).toBe('NOT_FOUND');
    expect(await db.node.count()).toBe(before);
  });

  it('revoking a token disconnects the agent using it and removes it from the list', async () => {
    const { caller } = await signedInCaller(db);
    const added = await caller.nodes.addComputer({ name: 'to revoke' });
    const hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 5_000, log: createLogger({ name: 't', level: 'silent' }) });
    await hub.start();
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${added.token}` } });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      const tokenId = (await caller.nodes.list()).nodes.find((n) => n.id === added.nodeId)?.tokens[0]?.id ?? '';
      expect(await caller.nodes.revokeToken({ tokenId })).toEqual({ tokenId, nodeId: added.nodeId });
      expect(await closed).toBe(CloseCode.revoked);
    } finally {
      await hub.stop();
    }
    expect(await findNodeByToken(db, added.token)).toMatchObject({ revoked: true });
    expect((await caller.nodes.list()).nodes.find((n) => n.id === added.nodeId)?.tokens).toEqual([]);
    expect(await trpcCode(caller.nodes.revokeToken({ tokenId: crypto.randomUUID() }))).toBe('NOT_FOUND');
  });

  it('sets executors; refuses none, and an unknown node is NOT_FOUND (Prisma P2025)', async () => {
    const { caller } = await signedInCaller(db);
    const { nodeId } = await caller.nodes.addComputer({ name: 'exec' });
    expect(await caller.nodes.setExecutors({ nodeId, executors: ['codex', 'codex'] })).toEqual({ nodeId, enabledExecutors: ['codex'] });
    expect((await db.node.findUniqueOrThrow({ where: { id: nodeId } })).enabledExecutors).toEqual(['codex']);
    expect(await trpcCode(caller.nodes.setExecutors({ nodeId, executors: [] }))).toBe('BAD_REQUEST');
    expect(await trpcCode(caller.nodes.setExecutors({ nodeId: crypto.randomUUID(), executors: ['claude'] }))).toBe('NOT_FOUND');
  });
});

describe('nodes router: what a computer page is about (issue 31, defect 8)', () => {
  it('a listed computer, a removed one with its name and date, and unknown for any other text', async () => {
    const { caller } = await signedInCaller(db);
    const listed = await createNodeWithToken(db, { name: 'listed box' });
    const removed = await createNodeWithToken(db, { name: 'old laptop' });
    const removedAt = new Date('2026-11-30T08:15:00Z');
    await db.node.update({ where: { id: removed.nodeId }, data: { removedAt } });
    expect(await caller.nodes.find({ nodeId: listed.nodeId })).toEqual({ status: 'listed', nodeId: listed.nodeId, name: 'listed box' });
    expect(await caller.nodes.find({ nodeId: removed.nodeId.toUpperCase() })).toEqual({
      status: 'removed',
      nodeId: removed.nodeId,
      name: 'old laptop',
      removedAt: removedAt.toISOString(),
    });
    for (const nodeId of [crypto.randomUUID(), 'not-an-id', '', "1' or '1'='1"]) {
      expect(await caller.nodes.find({ nodeId }), nodeId).toEqual({ status: 'unknown' });
    }
  });

  it('reports installed CLIs only once the agent said hello: both, one, or none', async () => {
    const { caller } = await signedInCaller(db);
    const { nodeId } = await createNodeWithToken(db, { name: 'reporting box' });
    const installed = async () => (await caller.nodes.list()).nodes.find((n) => n.id === nodeId)?.installedExecutors;
    expect(await installed()).toBeNull();
    await db.node.update({ where: { id: nodeId }, data: { agentVersion: '1.0.0', missingExecutors: ['codex'] } });
    expect(await installed()).toEqual(['claude']);
    await db.node.update({ where: { id: nodeId }, data: { missingExecutors: ['claude', 'codex'] } });
    expect(await installed()).toEqual([]);
    await db.node.update({ where: { id: nodeId }, data: { missingExecutors: [] } });
    expect(await installed()).toEqual(['claude', 'codex']);
  });
});
