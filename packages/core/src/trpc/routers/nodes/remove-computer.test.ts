import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { findNodeByToken } from '../../../db/repos/nodes.ts';
import { Hub } from '../../../hub/server.ts';
import { createLogger } from '../../../log.ts';
import { CloseCode } from '../../../protocol/index.ts';
import { installCommand } from '../../../services/nodes/install-command.ts';
import { callerFor, signedInCaller, TEST_AGENT_BUNDLE } from '../../test-support.ts';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';

/** Removing a computer and issuing a new token for one (issue 16), through the dashboard's router. */
const { db, tdb } = await fileDatabase();
const HUB = 'ws://203.0.113.7:3001/agent';

async function trpcError(p: Promise<unknown>): Promise<TRPCError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof TRPCError)) throw new Error(`expected a TRPCError, got ${String(e)}`);
  return e;
}

describe('nodes.remove', () => {
  it('refuses while the computer has open sessions, with the sentence to show', async () => {
    const { caller } = await signedInCaller(db, { hubPublicUrl: HUB });
    const added = await caller.nodes.addComputer({ name: 'busy' });
    await db.session.create({
      data: { id: randomUUID(), nodeId: added.nodeId, executor: 'claude', folder: '/w', nativeSessionId: randomUUID(), state: 'Ready' },
    });
    const e = await trpcError(caller.nodes.remove({ nodeId: added.nodeId }));
    expect(e.code).toBe('CONFLICT');
    expect(e.message).toBe('nodes.remove.hasOpenSessions');
    expect((await db.node.findUniqueOrThrow({ where: { id: added.nodeId } })).removedAt).toBeNull();
    expect(await findNodeByToken(db, added.token)).toMatchObject({ revoked: false });
  });

  it('removes a computer: its agent is disconnected, it leaves the lists, its closed sessions stay in the archive marked', async () => {
    const { caller } = await signedInCaller(db, { hubPublicUrl: HUB });
    const added = await caller.nodes.addComputer({ name: 'old laptop' });
    const archived = randomUUID();
    await db.session.create({
      data: {
        id: archived,
        nodeId: added.nodeId,
        executor: 'codex',
        folder: '/old',
        nativeSessionId: randomUUID(),
        state: 'Archived',
        archivedAt: new Date(),
        archiveSortAt: new Date(),
      },
    });
    const hub = new Hub({ db, databaseUrl: tdb.url, host: '127.0.0.1', port: 0, heartbeatMs: 5_000, log: createLogger({ name: 't', level: 'silent' }) });
    await hub.start();
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/agent`, { headers: { authorization: `Bearer ${added.token}` } });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      expect(await caller.nodes.remove({ nodeId: added.nodeId })).toEqual({ nodeId: added.nodeId, revokedTokens: 1 });
      expect(await closed).toBe(CloseCode.revoked);
    } finally {
      await hub.stop();
    }
    expect(await findNodeByToken(db, added.token)).toMatchObject({ revoked: true });
    expect((await caller.nodes.list()).nodes.map((n) => n.id)).not.toContain(added.nodeId);
    const page = await caller.archive.list({ search: '/old' });
    expect(page.items.find((s) => s.id === archived)?.node).toEqual({ name: 'old laptop', removed: true });
    // Twice: it is gone.
    expect((await trpcError(caller.nodes.remove({ nodeId: added.nodeId }))).code).toBe('NOT_FOUND');
    expect((await trpcError(caller.nodes.issueToken({ nodeId: added.nodeId }))).code).toBe('NOT_FOUND');
  });
});

describe('nodes.issueToken', () => {
  it('gives a revoked computer a new token and the command to run; the new token connects, the old one stays refused', async () => {
    const { caller } = await signedInCaller(db, { hubPublicUrl: HUB });
    const added = await caller.nodes.addComputer({ name: 'lost token' });
    const tokenId = (await caller.nodes.list()).nodes.find((n) => n.id === added.nodeId)?.tokens[0]?.id ?? '';
    await caller.nodes.revokeToken({ tokenId });
    const issued = await caller.nodes.issueToken({ nodeId: added.nodeId });
    // The same one command as "Add a computer": the checked download, the token in a file, the start.
    expect(issued.command).toBe(installCommand({ hubUrl: HUB, bundle: TEST_AGENT_BUNDLE, token: issued.token, insecure: true }));
    expect(await findNodeByToken(db, issued.token)).toMatchObject({ nodeId: added.nodeId, revoked: false });
    expect(await findNodeByToken(db, added.token)).toMatchObject({ revoked: true });
    expect((await caller.nodes.list()).nodes.find((n) => n.id === added.nodeId)?.tokens.map((t) => t.id)).toEqual([issued.tokenId]);
    expect(issued.revokedTokens).toBe(0);
  });

  it('replaces a live token (issue 30): the old one is revoked and counted, so the dashboard can say so; refused for this computer', async () => {
    const { caller } = await signedInCaller(db, { hubPublicUrl: HUB });
    const added = await caller.nodes.addComputer({ name: 'leaked token' });
    const issued = await caller.nodes.issueToken({ nodeId: added.nodeId });
    expect(issued.revokedTokens).toBe(1);
    expect(await findNodeByToken(db, added.token)).toMatchObject({ revoked: true });
    expect(await findNodeByToken(db, issued.token)).toMatchObject({ revoked: false });
    const local = await db.node.create({ data: { id: randomUUID(), name: 'this computer', isLocal: true } });
    expect((await trpcError(caller.nodes.issueToken({ nodeId: local.id }))).code).toBe('BAD_REQUEST');
  });
});

describe('auth.signOutEverywhere', () => {
  it('ends every browser session, this one included', async () => {
    const a = await signedInCaller(db);
    const b = await signedInCaller(db);
    expect((await a.caller.auth.signOutEverywhere()).ok).toBe(true);
    expect(await db.webSession.count({ where: { revokedAt: null } })).toBe(0);
    // The next request of the other browser (its cookie resolved again) is signed out.
    const { caller: again } = await callerFor(db, b.web);
    expect((await trpcError(again.nodes.list())).code).toBe('UNAUTHORIZED');
  });
});
