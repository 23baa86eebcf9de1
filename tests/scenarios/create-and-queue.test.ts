import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Executor, procAlive, startSystem, type System } from '../../packages/testkit/src/system.ts';
import { assertInvariants, nativeJournal, reached } from './invariants.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
});
afterAll(async () => {
  await sys?.dispose();
});

describe.each(['claude', 'codex'] as Executor[])('%s', (executor) => {
  it('Create: one session whose CLI runs on the node, stored with the same native id', async () => {
    const s = await sys.createSession(executor, sys.folder(`create-${executor}`));
    const ready = await sys.waitState(s.id, 'Ready');
    expect(ready.executor).toBe(executor);
    expect(ready.nodeId).toBe(sys.nodeId);
    const id = await sys.identity(s.id);
    expect(procAlive(id.cliPid)).toBe(true);
    expect(sys.paneDead(id.paneId)).toBe(false);
    expect(ready.nativeSessionId).toBe(id.nativeId);
    expect(await sys.db.session.count({ where: { nodeId: sys.nodeId, executor, launchSource: { not: 'discovered' } } })).toBe(1);
    await sys.close(s.id);
    await sys.waitState(s.id, 'Archived');
  });

  it('Message while starting: stored, then delivered once each, in order, in that CLI', async () => {
    const s = await sys.createSession(executor, sys.folder(`queue-${executor}`));
    const texts = [`first ${executor} alpha`, `second ${executor} beta`, `third ${executor} gamma`];
    for (const t of texts) await sys.send(s.id, t);
    expect((await sys.session(s.id)).state).toBe('Starting');
    const msgs = await sys.waitMessages(s.id, (st) => st.every((x) => x === 'completed'));
    expect(msgs.map((m) => m.text)).toEqual(texts);
    const native = (await sys.session(s.id)).nativeSessionId!;
    const seen = sys.turns(executor, native).map((r) => r.userText);
    expect(seen.filter((t) => texts.some((x) => t?.endsWith(x)))).toEqual(texts);
    for (const t of texts) expect(reached(sys, executor, native, t)).toBe(1);
    for (const m of msgs) expect(m.finalText).toMatch(/MOCK-REPLY/);
    const id = await sys.identity(s.id);
    expect(procAlive(id.cliPid)).toBe(true);
    // The CLI's own journal, named by the native id, holds the three prompts.
    const journal = nativeJournal(sys, native);
    expect(journal).not.toBeNull();
    for (const t of texts) expect(readFileSync(journal!, 'utf8')).toContain(t);
    await assertInvariants(sys, [s.id]);
  });
});
