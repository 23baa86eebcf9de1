import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInCaller } from '../../../../packages/core/src/trpc/test-support.ts';
import { startSystem, type System, waitUntil } from '../../../../packages/testkit/src/system.ts';

// The dashboard's conversation end to end: real CLIs in tmux write their journals, the real agent
// reads them on `read_journal`, and the tRPC query returns the turns (and says why when it cannot).
let sys: System;
let caller: Awaited<ReturnType<typeof signedInCaller>>['caller'];
beforeAll(async () => {
  sys = await startSystem({ executors: ['claude', 'codex'], slowChunks: 1, slowChunkMs: 10 });
  await sys.startAgent();
  ({ caller } = await signedInCaller(sys.db));
}, 90_000);
afterAll(async () => {
  await sys?.dispose();
});

async function runTurns(sessionId: string, texts: string[]): Promise<void> {
  for (const [i, text] of texts.entries()) {
    await sys.send(sessionId, text);
    await sys.waitMessages(sessionId, (st) => st.length === i + 1 && ['completed', 'failed', 'terminal_failed'].includes(st[i]!), 60_000);
  }
}

describe('read_journal through the hub, the agent and tRPC', () => {
  it('Claude: the turns as the journal holds them — finals, an API error, a turn ended by Esc, then dropped', async () => {
    const s = await sys.createSession('claude', sys.folder('rj-claude'));
    await sys.waitState(s.id, 'Ready');
    await runTurns(s.id, ['hello one', 'FAIL400 please']);
    await sys.send(s.id, 'HANG please');
    await sys.waitMessages(s.id, (st) => st[2] === 'accepted', 60_000);
    await sys.stop(s.id);
    await sys.waitMessages(s.id, (st) => st[2] !== 'accepted' && st[2] !== 'pending' && st[2] !== 'leased', 60_000);

    const stored = await sys.messages(s.id);
    const r = await caller.sessions.journal({ sessionId: s.id });
    if (!r.available) throw new Error(`not available: ${r.reason} ${r.detail}`);
    expect(r.source).toBe('native');
    // Esc before the first response byte leaves Claude's journal without an end record for HANG:
    // the journal says pending, Bria's bound message says how it ended.
    expect(r.turns.map((t) => [t.prompt, t.state])).toEqual([
      ['hello one', 'completed'],
      ['FAIL400 please', 'api_error'],
      ['HANG please', 'pending'],
    ]);
    expect(r.turns.map((t) => t.message?.id)).toEqual(stored.map((m) => m.id));
    expect(r.turns[2]?.message).toMatchObject({ status: 'terminal_failed', outcomeDetail: 'interrupted' });
    // The same final the queue stored from the live journal.
    expect(r.turns[0]?.final).toBe(stored[0]?.finalText);
    expect(r.turns[0]?.final).toMatch(/MOCK-REPLY/);
    expect(r.turns[1]?.detail).toMatch(/fail400/i);

    // The next prompt hangs off the same parent: Claude dropped HANG from the conversation.
    await sys.waitState(s.id, 'Ready');
    await sys.send(s.id, 'after interrupt');
    await sys.waitMessages(s.id, (st) => st[3] === 'completed', 60_000);
    const after = await caller.sessions.journal({ sessionId: s.id });
    expect(after.available && after.turns.map((t) => t.state)).toEqual(['completed', 'api_error', 'dropped', 'completed']);

    // After the close the CLI's journal may be pruned: Bria's archive copy is read instead.
    await sys.close(s.id);
    const closed = await sys.waitState(s.id, 'Archived', 60_000);
    const archive = await sys.db.archiveCopy.findUnique({ where: { sessionId: s.id } });
    expect(archive).not.toBeNull();
    const native = closed.identity as { journalPath?: string; host?: { journalPath?: string } } | null;
    const journal = native?.journalPath ?? native?.host?.journalPath ?? closed.journalPath;
    expect(journal).toBeTruthy();
    rmSync(journal!);
    const fromArchive = await caller.sessions.journal({ sessionId: s.id, offset: 0, limit: 2 });
    expect(fromArchive).toMatchObject({ available: true, source: 'archive', totalTurns: 4, offset: 0 });
    expect(fromArchive.available && fromArchive.turns.map((t) => t.prompt)).toEqual(['hello one', 'FAIL400 please']);
    // Neither the CLI's journal nor Bria's copy: the page is told so (and shows Bria's stored turns).
    rmSync(archive!.path);
    expect(await caller.sessions.journal({ sessionId: s.id })).toEqual({ available: false, reason: 'not_found', detail: null });
  }, 240_000);

  it('Codex: the turns by turn id', async () => {
    const s = await sys.createSession('codex', sys.folder('rj-codex'));
    await sys.waitState(s.id, 'Ready', 60_000);
    await runTurns(s.id, ['hello one', 'second turn']);
    const r = await caller.sessions.journal({ sessionId: s.id });
    if (!r.available) throw new Error(`not available: ${r.reason} ${r.detail}`);
    expect(r.turns.map((t) => [t.prompt, t.state])).toEqual([
      ['hello one', 'completed'],
      ['second turn', 'completed'],
    ]);
    expect(r.turns[1]?.final).toBe((await sys.messages(s.id))[1]?.finalText);
    // An open session without a journal file is one the CLI has not written yet, not a lost one.
    const journal = (await sys.identity(s.id)).journalPath ?? (await sys.session(s.id)).journalPath;
    expect(journal).toBeTruthy();
    rmSync(journal!);
    expect(await caller.sessions.journal({ sessionId: s.id })).toEqual({ available: false, reason: 'not_written_yet', detail: null });
  }, 180_000);

  it('says "node offline" instead of waiting when the agent is away', async () => {
    const s = await sys.db.session.findFirstOrThrow({ where: { executor: 'codex' } });
    await sys.stopAgent();
    await waitUntil('the node offline', async () => !(await sys.db.node.findUniqueOrThrow({ where: { id: sys.nodeId } })).online, 30_000);
    const t0 = Date.now();
    expect(await caller.sessions.journal({ sessionId: s.id })).toEqual({ available: false, reason: 'node_offline', detail: null });
    expect(Date.now() - t0).toBeLessThan(2_000);
  }, 60_000);
});
