import { TRPCError } from '@trpc/server';
import { afterAll, describe, expect, it } from 'vitest';
import { fileDatabase } from '../../../../../testkit/src/file-database.ts';
import { ChangeFeed } from '../../../db/repos/change-feed.ts';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { createCaller } from '../../app-router.ts';
import { createContext } from '../../context.ts';
import { signedInCaller } from '../../test-support.ts';

/**
 * Issue 30: an open live stream is re-checked after a sign-out. Once the browser's session is
 * ended (Sign out everywhere from another tab, here), the stream sends no further change and ends
 * with UNAUTHORIZED.
 */
const { tdb, db } = await fileDatabase();
const feed = new ChangeFeed(tdb.url);
afterAll(() => feed.close());

describe('live.changes after a sign-out', () => {
  it('sends nothing more and ends UNAUTHORIZED', async () => {
    const { web } = await signedInCaller(db);
    const other = await signedInCaller(db);
    const ac = new AbortController();
    const caller = createCaller(await createContext({ db, headers: new Headers({ cookie: `bria_session=${web.secret}` }), changes: feed }), {
      signal: ac.signal,
    });
    const { nodeId } = await createNodeWithToken(db, { name: `live-out-${crypto.randomUUID().slice(0, 6)}` });
    const stream = (await caller.live.changes()) as AsyncGenerator<unknown>;
    expect((await stream.next()).value).toEqual({ kind: 'resync' });
    await feed.ensure();

    // A change while signed in arrives.
    await db.node.update({ where: { id: nodeId }, data: { online: true } });
    expect((await stream.next()).value).toEqual({ kind: 'node', id: nodeId });

    // Signed out everywhere (from the other browser), then something changes.
    await other.caller.auth.signOutEverywhere();
    await db.node.update({ where: { id: nodeId }, data: { online: false } });
    const after = await stream.next().then(
      (r) => r,
      (err: unknown) => err,
    );
    ac.abort();
    expect(after).toBeInstanceOf(TRPCError);
    expect((after as TRPCError).code).toBe('UNAUTHORIZED');
  });
});
