// Issue 14: "Compact the context" — the CLI's own /compact, typed by the agent as the command while
// the session is idle; confirmed by what the CLI's journal recorded; the session, its native id and
// its queue carry on. Both real CLIs against the mock models (which answer the summary request).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as services from '../../packages/core/src/services/index.ts';
import { type Executor, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
});

describe.each(['claude', 'codex'] as Executor[])('%s', (executor) => {
  it('compacts an idle session once; a busy one is refused; the same native session continues', async () => {
    const id = (await sys.createSession(executor, sys.folder(`compact-${executor}`))).id;
    // Claude compacts nothing of a single exchange ("Not enough messages to compact"): two first.
    await sys.send(id, `first ${executor} message`);
    await sys.waitMessages(id, (st) => st[0] === 'completed', 90_000);
    await sys.send(id, `second ${executor} message`);
    await sys.waitMessages(id, (st) => st.length === 2 && st[1] === 'completed', 90_000);
    await sys.waitState(id, 'Ready', 30_000);
    const native = (await sys.session(id)).nativeSessionId;
    const before = sys.mocks[executor].requests.length;

    await services.compactSession(sys.deps, { sessionId: id });
    const done = await waitUntil(
      'the compaction recorded',
      async () => (await sys.db.sessionEvidence.findFirst({ where: { sessionId: id, event: { in: ['compact_done', 'compact_failed'] } } })) ?? null,
      120_000,
    );
    expect(done.event).toBe('compact_done');
    expect((done.evidence as { detail: string }).detail).toMatch(/^Compacted/);
    // The model was asked for the summary (the CLI's own request).
    expect(sys.mocks[executor].requests.length).toBeGreaterThan(before);
    const notice = (await sys.outbox(id)).filter((o) => o.kind === 'compacted');
    expect(notice.map((o) => (o.payload as { ok: boolean }).ok)).toEqual([true]);
    expect(await sys.db.agentCommand.count({ where: { sessionId: id, type: 'compact_context' } })).toBe(1);

    // Busy: a turn runs → refused, nothing sent to the agent.
    await sys.send(id, `SLOW third ${executor} message`);
    await sys.waitState(id, 'Running', 60_000);
    await expect(services.compactSession(sys.deps, { sessionId: id })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await sys.db.agentCommand.count({ where: { sessionId: id, type: 'compact_context' } })).toBe(1);
    const msgs = await sys.waitMessages(id, (st) => st.length === 3 && st[2] === 'completed', 120_000);
    expect(msgs[2]!.finalText).toBeTruthy();
    const s = await sys.session(id);
    expect(s.nativeSessionId).toBe(native);
  }, 300_000);
});
