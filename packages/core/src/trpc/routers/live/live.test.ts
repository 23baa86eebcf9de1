import { afterAll, describe, expect, it } from 'vitest';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';
import { ChangeFeed } from '../../../db/repos/change-feed.ts';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { createCaller } from '../../app-router.ts';
import { createContext } from '../../context.ts';
import { signedInCaller } from '../../test-support.ts';

const { tdb, db } = await fileDatabase();
const feed = new ChangeFeed(tdb.url);
afterAll(() => feed.close());

/** Collects changes from the subscription until `until` says enough (or 5 s pass). */
async function collect(iterable: AsyncIterable<unknown>, until: (seen: unknown[]) => boolean): Promise<unknown[]> {
  const seen: unknown[] = [];
  const timer = setTimeout(() => void (iterable as AsyncGenerator).return?.(undefined), 5000);
  for await (const c of iterable) {
    seen.push(c);
    if (until(seen)) break;
  }
  clearTimeout(timer);
  return seen;
}

describe('live.changes', () => {
  it('streams ids of sessions, messages and nodes changed by anyone, never their content', async () => {
    const { web } = await signedInCaller(db);
    const headers = new Headers({ cookie: `bria_session=${web.secret}` });
    const ac = new AbortController();
    const caller = createCaller(await createContext({ db, headers, changes: feed }), { signal: ac.signal });
    const { nodeId } = await createNodeWithToken(db, { name: 'live' });
    const stream = await caller.live.changes();
    const sessionId = crypto.randomUUID();

    const got = collect(stream, (seen) => seen.some((c) => (c as { kind: string }).kind === 'session'));
    await feed.ensure();
    await new Promise((r) => setTimeout(r, 100));
    // Writes as the bot, the hub or another tab would make them: straight to the database.
    await db.node.update({ where: { id: nodeId }, data: { lastSeenAt: new Date() } });
    await db.node.update({ where: { id: nodeId }, data: { online: true } });
    await db.session.create({ data: { id: sessionId, nodeId, executor: 'claude', folder: '/secret/folder', nativeSessionId: 'n1', state: 'Ready' } });
    const seen = await got;
    ac.abort();
    expect(seen[0]).toEqual({ kind: 'resync' });
    // The heartbeat-only update sent nothing; the online flip did.
    expect(seen.slice(1)).toEqual([
      { kind: 'node', id: nodeId },
      { kind: 'session', id: sessionId },
    ]);
    expect(JSON.stringify(seen)).not.toContain('/secret/folder');
  });

  it('a message insert announces its session', async () => {
    await feed.ensure();
    const { nodeId } = await createNodeWithToken(db, { name: 'live2' });
    const sessionId = crypto.randomUUID();
    await db.session.create({ data: { id: sessionId, nodeId, executor: 'codex', folder: '/w', nativeSessionId: 'n2', state: 'Ready' } });
    // Let the set-up's own announcements pass before subscribing: only the message's may count.
    await new Promise((r) => setTimeout(r, 500));
    const ac = new AbortController();
    const stream = feed.stream(ac.signal);
    const got = collect(stream, (seen) => seen.some((c) => (c as { kind: string }).kind === 'session'));
    await feed.ensure();
    await new Promise((r) => setTimeout(r, 100));
    await db.message.create({ data: { id: crypto.randomUUID(), sessionId, seq: 1, source: 'web', text: 'hello there' } });
    const seen = await got;
    ac.abort();
    expect(seen[0]).toEqual({ kind: 'resync' });
    // The node and session set up above may still announce themselves (their NOTIFYs can reach
    // this stream late on a busy machine); the message must announce exactly its session.
    expect(seen.filter((c) => (c as { kind: string }).kind === 'session')).toEqual([{ kind: 'session', id: sessionId }]);
    expect(JSON.stringify(seen)).not.toContain('hello there');
  });
});
