import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../../testkit/src/postgres.ts';
import { createDb, type Db } from '../../../db/client.ts';
import { createNodeWithToken } from '../../../db/repos/nodes.ts';
import { signedInCaller } from '../../test-support.ts';

const ROWS = 10_000;
let tdb: TestDatabase;
let db: Db;
let nodeId: string;
let otherNodeId: string;

/** 10,000 archived sessions on one node (half discovered), plus a few on another node. */
beforeAll(async () => {
  tdb = await createTestDatabase();
  db = createDb(tdb.url);
  ({ nodeId } = await createNodeWithToken(db, { name: 'big' }));
  ({ nodeId: otherNodeId } = await createNodeWithToken(db, { name: 'other' }));
  await db.$executeRaw`
    insert into "Session" (id, "nodeId", executor, folder, "nativeSessionId", state, "launchSource", title, "firstPrompt", "archivedAt", "archiveSortAt", "updatedAt")
    select gen_random_uuid(), ${nodeId}::uuid, (case when i % 3 = 0 then 'codex' else 'claude' end)::"Executor",
      '/home/me/project-' || (i % 50), 'native-' || i, 'Archived', case when i % 2 = 0 then 'discovered' else 'bria' end,
      case when i = 7777 then 'Needle title' else 'Session ' || i end,
      case when i = 4242 then 'please refactor the zebra parser' else 'prompt ' || i end,
      now(), timestamp '2026-01-01' + (i || ' minutes')::interval, now()
    from generate_series(1, ${ROWS}) as i`;
  await db.$executeRaw`
    insert into "Session" (id, "nodeId", executor, folder, "nativeSessionId", state, title, "archiveSortAt", "updatedAt")
    select gen_random_uuid(), ${otherNodeId}::uuid, 'claude', '/elsewhere', 'other-' || i, 'Archived', 'Needle title', now(), now()
    from generate_series(1, 5) as i`;
  await db.$executeRaw`analyze "Session"`;
}, 120_000);
afterAll(async () => {
  await db.$disconnect();
  await tdb.drop();
});

describe('archive router with 10,000 archived sessions', () => {
  it('pages through the whole archive by cursor: every row once, newest first, no row of another node', async () => {
    const { caller } = await signedInCaller(db);
    const seen = new Set<string>();
    let cursor: string | null = null;
    let last = Number.POSITIVE_INFINITY;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof caller.archive.list>> = await caller.archive.list({ nodeId, cursor, limit: 100 });
      for (const s of page.items) {
        expect(s.nodeId).toBe(nodeId);
        expect(seen.has(s.id)).toBe(false);
        seen.add(s.id);
        const n = Number(s.nativeSessionId?.slice('native-'.length));
        expect(n).toBeLessThan(last);
        last = n;
      }
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen.size).toBe(ROWS);
    expect(pages).toBe(ROWS / 100);
  });

  it('searches title, folder and first prompt, filters by executor', async () => {
    const { caller } = await signedInCaller(db);
    expect((await caller.archive.list({ nodeId, search: 'needle' })).items.map((s) => s.nativeSessionId)).toEqual(['native-7777']);
    expect((await caller.archive.list({ nodeId, search: 'ZEBRA parser' })).items.map((s) => s.nativeSessionId)).toEqual(['native-4242']);
    const folder = await caller.archive.list({ nodeId, search: 'project-49', limit: 100 });
    expect(folder.items.every((s) => s.folder === '/home/me/project-49')).toBe(true);
    expect(folder.items).toHaveLength(100);
    expect(folder.nextCursor).not.toBeNull();
    const codex = await caller.archive.list({ nodeId, executor: 'codex', limit: 100 });
    expect(codex.items.every((s) => s.executor === 'codex')).toBe(true);
    expect((await caller.archive.list({ nodeId, search: 'nothing like this' })).items).toEqual([]);
  });

  it('pages come from the keyset index, deep or not (timings: archive.bench.ts via npm run bench -- archive)', async () => {
    const { caller } = await signedInCaller(db);
    // A cursor near the end of the archive: an OFFSET or unindexed sort would have to walk 9,900 rows.
    const rows = await db.session.findMany({
      where: { nodeId, state: 'Archived' },
      orderBy: [{ archiveSortAt: 'desc' }, { id: 'desc' }],
      skip: 9_899,
      take: 1,
      select: { id: true },
    });
    const deepCursor = rows[0]?.id ?? null;
    const plan = await db.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
      `explain select id from "Session" where "nodeId" = $1::uuid and state = 'Archived' order by "archiveSortAt" desc, id desc limit 31`,
      nodeId,
    );
    expect(plan.map((p) => p['QUERY PLAN']).join('\n')).toMatch(/Index (Only )?Scan using "Session_(nodeId_)?state_archiveSortAt_id_idx"/);
    const deepPage = await caller.archive.list({ nodeId, cursor: deepCursor });
    expect(deepPage.items.map((s) => s.nativeSessionId)).toEqual(Array.from({ length: deepPage.items.length }, (_, i) => `native-${100 - i}`));
  });

  it('spans every computer when no computer is given', async () => {
    const { caller } = await signedInCaller(db);
    const all = await caller.archive.list({ search: 'needle', limit: 100 });
    expect(new Set(all.items.map((s) => s.nodeId))).toEqual(new Set([nodeId, otherNodeId]));
    expect(all.items).toHaveLength(6);
  });

  it('finds a word from a later message of the conversation (full text, prefixes), with the match marked', async () => {
    const { caller } = await signedInCaller(db);
    const target = (await db.session.findFirstOrThrow({ where: { nativeSessionId: 'native-1234' }, select: { id: true } })).id;
    // A retried attempt starts clean.
    await db.message.deleteMany({ where: { sessionId: target } });
    await db.message.createMany({
      data: [
        {
          id: '30000000-0000-4000-8000-000000000001',
          sessionId: target,
          seq: 1,
          source: 'web',
          text: 'set up the project',
          finalText: 'Done.',
          status: 'completed',
        },
        {
          id: '30000000-0000-4000-8000-000000000002',
          sessionId: target,
          seq: 2,
          source: 'web',
          text: 'now make the колибри widget faster',
          finalText: 'I profiled the hummingbird renderer and cached it.',
          status: 'completed',
        },
      ],
    });
    const byPrompt = await caller.archive.list({ search: 'колибри' });
    expect(byPrompt.items.map((s) => s.nativeSessionId)).toEqual(['native-1234']);
    expect(byPrompt.items[0]?.match?.messageId).toBe('30000000-0000-4000-8000-000000000002');
    expect(byPrompt.items[0]?.match?.snippet).toContain('\u0002колибри\u0003');
    // A prefix of a word in a final, on this computer's archive; the snippet comes from the final.
    const byFinal = await caller.archive.list({ nodeId, search: 'HUMMING rend' });
    expect(byFinal.items.map((s) => s.nativeSessionId)).toEqual(['native-1234']);
    expect(byFinal.items[0]?.match?.snippet).toContain('\u0002hummingbird\u0003');
    // Every word must occur; punctuation is not query syntax.
    expect((await caller.archive.list({ search: 'hummingbird zebra' })).items).toEqual([]);
    expect((await caller.archive.list({ search: "hummingbird & | ! ( ' :*" })).items.map((s) => s.nativeSessionId)).toEqual(['native-1234']);
    // The title/folder matches of before have no snippet.
    expect((await caller.archive.list({ nodeId, search: 'needle' })).items[0]?.match).toBeNull();
  });
});
