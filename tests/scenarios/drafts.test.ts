import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../packages/core/src/db/repos/change-feed.ts';
import type { DraftNotice } from '../../packages/core/src/db/repos/drafts.ts';
import { type Executor, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

// Issue 31: the answer being written reaches the dashboard's feed as growing drafts, read by the real
// agent from the real CLI's screen, relayed by the hub over NOTIFY; the final (journal) is unchanged,
// and no draft is stored anywhere.
let sys: System;
let feed: ChangeFeed;
beforeAll(async () => {
  sys = await startSystem({ slowChunks: 30, slowChunkMs: 100 });
  await sys.startAgent();
  feed = new ChangeFeed(sys.databaseUrl);
  await feed.ensure();
});
afterAll(async () => {
  await feed?.close();
  await sys?.dispose();
});

describe.each((process.env.DRAFT_CLI ? [process.env.DRAFT_CLI] : ['claude', 'codex']) as Executor[])('%s', (executor) => {
  it('an answer grows as drafts on the feed before its final, which is the journal byte for byte', async () => {
    const s = await sys.createSession(executor, sys.folder(`draft-${executor}-${Date.now()}`));
    await sys.waitState(s.id, 'Ready');
    const drafts: (DraftNotice & { at: number })[] = [];
    const stop = new AbortController();
    const reading = (async () => {
      for await (const d of feed.drafts(s.id, stop.signal)) drafts.push({ ...d, at: Date.now() });
    })();
    const text = `SLOWLINES draft ${executor} ${Date.now()}`;
    const messageId = (await sys.send(s.id, text)).message.id;
    // The final as the database stores it, and when it was first seen there (read every 20 ms).
    const final = await waitUntil('the final', async () => (await sys.db.message.findUnique({ where: { id: messageId } }))?.finalText ?? null, 60_000, 20);
    const finalSeenAt = Date.now();
    stop.abort();
    await reading;
    const native = (await sys.session(s.id)).nativeSessionId!;
    const reply = sys.turns(executor, native).find((r) => r.userText?.endsWith(text))?.reply;
    expect(final).toBe(reply);
    const before = drafts.filter((d) => d.at < finalSeenAt && d.messageId === messageId);
    const distinct = [...new Set(before.map((d) => d.text))];
    expect(distinct.length).toBeGreaterThanOrEqual(3);
    // Each draft is the start of the answer, and each one longer than the last: it grows.
    if (process.env.DEBUG_DRAFTS) console.log(JSON.stringify({ final, distinct }, null, 1));
    for (const [i, d] of distinct.entries()) {
      expect(final!.startsWith(d)).toBe(true);
      if (i > 0) expect(d.length).toBeGreaterThan(distinct[i - 1]!.length);
    }
    // Never more than 5 a second (first to last, one interval of slack for the first).
    const spanMs = before.at(-1)!.at - before[0]!.at;
    expect(before.length - 1).toBeLessThanOrEqual(Math.ceil(spanMs / 200) + 1);
    // Ephemeral: no agent event, no row of any kind holds a draft.
    expect(await sys.db.agentEvent.count({ where: { type: 'draft' } })).toBe(0);
  });
});
