import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getActiveSession } from '../../packages/core/src/services/index.ts';
import { type Executor, procAlive, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';
import { assertInvariants } from './invariants.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
});
afterAll(async () => {
  await sys?.dispose();
});

const HOURS_12 = 12 * 3600_000;
const kinds = async (id: string) => (await sys.outbox(id)).map((o) => (o.payload as { kind: string }).kind);

describe.each(['claude', 'codex'] as Executor[])('%s', (executor) => {
  it('Jump to finished background: it becomes active with its final, the other goes background, neither restarts', async () => {
    const a = await sys.createSession(executor, sys.folder(`jump-a-${executor}`));
    await sys.waitState(a.id, 'Ready');
    const b = await sys.createSession(executor, sys.folder(`jump-b-${executor}`));
    await sys.waitState(b.id, 'Ready');
    expect((await getActiveSession(sys.deps, { chatId: sys.chatId, nodeId: sys.nodeId }))?.id).toBe(b.id);
    const pidA = (await sys.identity(a.id)).cliPid;
    const pidB = (await sys.identity(b.id)).cliPid;
    await sys.send(b.id, `SLOW foreground work ${executor}`);
    await sys.send(a.id, `background job ${executor}`);
    const [done] = await sys.waitMessages(a.id, (st) => st[0] === 'completed');
    await waitUntil('background notice', async () => (await kinds(a.id)).includes('background_done'));
    const notice = (await sys.outbox(a.id)).find((o) => (o.payload as { kind: string }).kind === 'background_done')!;
    const jump = (notice.payload as { jump: { sessionId: string; nodeId: string } }).jump;
    expect(jump).toEqual({ sessionId: a.id, nodeId: sys.nodeId });
    // The foreground card was not taken over by the background update.
    expect((await getActiveSession(sys.deps, { chatId: sys.chatId, nodeId: sys.nodeId }))?.id).toBe(b.id);
    const r = await sys.jump(jump.sessionId);
    expect(r.active.id).toBe(a.id);
    expect(r.previousActiveId).toBe(b.id);
    expect(r.lastFinal?.text).toBe(done!.finalText);
    expect((await getActiveSession(sys.deps, { chatId: sys.chatId, nodeId: sys.nodeId }))?.id).toBe(a.id);
    expect((await sys.identity(a.id)).cliPid).toBe(pidA);
    expect((await sys.identity(b.id)).cliPid).toBe(pidB);
    expect(procAlive(pidA) && procAlive(pidB)).toBe(true);
    // The other one keeps working in the background and finishes.
    await sys.waitMessages(b.id, (st) => st[0] === 'completed');
    expect((await sys.identity(b.id)).cliPid).toBe(pidB);
    await assertInvariants(sys, [a.id, b.id]);
    for (const s of [a, b]) await sys.close(s.id);
    for (const s of [a, b]) await sys.waitState(s.id, 'Archived');
  });

  it('Lifetime expiry while idle: closed automatically, process ended, exactly one archive record', async () => {
    const s = await sys.createSession(executor, sys.folder(`idle-${executor}`));
    await sys.send(s.id, `only message ${executor}`);
    await sys.waitMessages(s.id, (st) => st[0] === 'completed');
    const pid = (await sys.identity(s.id)).cliPid;
    sys.clock.advance(HOURS_12 + 1000);
    const row = await sys.waitState(s.id, 'Archived', 30_000);
    expect(procAlive(pid)).toBe(false);
    expect(await sys.db.archiveCopy.count({ where: { sessionId: s.id } })).toBe(1);
    expect(row.archivedAt).not.toBeNull();
    expect((await sys.evidence(s.id)).some((e) => e.event === 'lifetime_expired')).toBe(true);
    expect(await sys.db.session.count({ where: { id: s.id, state: { not: 'Archived' } } })).toBe(0);
    await assertInvariants(sys, [s.id]);
  });

  it('Lifetime expiry while working: the answer finishes, new input is refused and not queued, then close', async () => {
    const s = await sys.createSession(executor, sys.folder(`busy-${executor}`));
    await sys.send(s.id, `SLOW last answer ${executor}`);
    await sys.waitState(s.id, 'Running');
    const pid = (await sys.identity(s.id)).cliPid;
    sys.clock.advance(HOURS_12 + 1000);
    await sys.waitState(s.id, 'ClosingAfterWork', 10_000);
    expect(procAlive(pid)).toBe(true); // current work is not interrupted
    await expect(sys.send(s.id, `too late ${executor}`)).rejects.toThrow();
    expect((await sys.messages(s.id)).map((m) => m.text)).toEqual([`SLOW last answer ${executor}`]);
    expect(await kinds(s.id)).toContain('expiry_refusal');
    const row = await sys.waitState(s.id, 'Archived', 45_000);
    const [m] = await sys.messages(s.id);
    expect(m!.status).toBe('completed');
    expect(m!.finalText).toBeTruthy();
    expect(procAlive(pid)).toBe(false);
    expect(await sys.db.archiveCopy.count({ where: { sessionId: s.id } })).toBe(1);
    expect(row.archivedAt!.getTime()).toBeGreaterThan(m!.outcomeAt!.getTime() - 1);
    expect(sys.turns(executor, row.nativeSessionId!).filter((r) => (r.userText ?? '').includes('too late'))).toHaveLength(0);
    await assertInvariants(sys, [s.id]);
  });
});
