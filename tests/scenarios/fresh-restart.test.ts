import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Executor, isRecordedProcess, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';
import { assertInvariants, nativeJournal, reached } from './invariants.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
});
afterAll(async () => {
  await sys?.dispose();
});

const commandTypes = async (sessionId: string) =>
  (await sys.db.agentCommand.findMany({ where: { sessionId }, orderBy: { createdAt: 'asc' }, select: { type: true } })).map((c) => c.type);

// Domain README decision 7: a CLI that reached Ready but never took a message has no native
// conversation (Codex writes its rollout, Claude its journal, only with the first prompt), so after
// its process dies it is started again for the same Bria session instead of a resume that can never
// work (before this, every retry ended resume_failed and the queue waited for ever).
describe.each(['codex', 'claude'] as Executor[])('%s', (executor) => {
  it('CLI killed after Ready, before any message → started again for the same session; the queue then reaches the model once', async () => {
    const s = await sys.createSession(executor, sys.folder(`fresh-${executor}`));
    await sys.waitState(s.id, 'Ready');
    const first = await sys.session(s.id);
    const oldNative = first.nativeSessionId!;
    expect(oldNative).toBeTruthy();
    expect(nativeJournal(sys, oldNative)).toBeNull();
    const old = await sys.identity(s.id);
    await sys.killCli(s.id);
    await waitUntil('AwaitingRecovery recorded', async () => (await sys.evidence(s.id)).some((e) => e.toState === 'AwaitingRecovery'), 20_000);
    await sys.send(s.id, `fresh ${executor} one`);
    await sys.send(s.id, `fresh ${executor} two`);
    const msgs = await sys.waitMessages(s.id, (st) => st.length === 2 && st.every((x) => x === 'completed'), 90_000);
    expect(msgs.map((m) => m.finalText ?? '')).toEqual([expect.stringMatching(/\w/), expect.stringMatching(/\w/)]);

    // Re-read: the same Bria session, Ready on a new CLI process of the same node and executor.
    const row = await sys.session(s.id);
    expect(row.state).toBe('Ready');
    expect(row.executor).toBe(executor);
    expect(row.nodeId).toBe(sys.nodeId);
    const now = await sys.identity(s.id);
    expect(now.cliPid).not.toBe(old.cliPid);
    expect(isRecordedProcess(old.cliPid, old.cliStartTime)).toBe(false);
    expect(isRecordedProcess(now.cliPid, now.cliStartTime)).toBe(true);
    const native = row.nativeSessionId!;
    if (executor === 'claude') {
      // Bria chose the id up front: the CLI was started again under it.
      expect(native).toBe(oldNative);
    } else {
      // The dead Codex showed an id it never wrote anywhere; the new one's id replaced it, on record.
      expect(native).not.toBe(oldNative);
      const ev = (await sys.evidence(s.id)).find((e) => e.event === 'native_id_replaced');
      expect(ev?.evidence).toMatchObject({ previous: oldNative, now: native, reason: 'no_conversation_began' });
      expect(sys.turns(executor, oldNative)).toHaveLength(0);
    }
    expect(nativeJournal(sys, native)).not.toBeNull();
    for (const m of msgs) expect(reached(sys, executor, native, m.text)).toBe(1);
    const order = sys.turns(executor, native).map((r) => r.userText ?? '');
    expect(order.findIndex((t) => t.endsWith(`fresh ${executor} one`))).toBeLessThan(order.findIndex((t) => t.endsWith(`fresh ${executor} two`)));
    // Started again, never resumed; never a second Bria session.
    const types = await commandTypes(s.id);
    expect(types.filter((t) => t === 'start_session').length).toBeGreaterThanOrEqual(2);
    expect(types).not.toContain('resume_session');
    expect(await sys.db.session.count({ where: { folder: first.folder } })).toBe(1);
    await assertInvariants(sys, [s.id]);
  });

  // The agent's record keeps a delivery mark (a paste begun, never bound to a receipt) while the
  // hub's queue holds nothing that reached the CLI; refusing every start again because of it would
  // leave the session waiting for ever. The dead CLI's own store is the proof that
  // no prompt was submitted: with none there, the CLI is started again under the same session.
  it('a delivery mark without a receipt does not block the start again when the dead CLI wrote no conversation', async () => {
    if (sys.agentPid === null) await sys.startAgent(); // an earlier failure here may have left it stopped
    const s = await sys.createSession(executor, sys.folder(`mark-${executor}`));
    await sys.waitState(s.id, 'Ready');
    const oldNative = (await sys.session(s.id)).nativeSessionId!;
    const old = await sys.identity(s.id);
    await sys.killAgent();
    const file = path.join(sys.agentDir, 'sessions', 'sessions.json');
    const records = JSON.parse(readFileSync(file, 'utf8')) as { sessionId: string; deliveries?: unknown[] }[];
    const record = records.find((r) => r.sessionId === s.id)!;
    expect(record.deliveries).toEqual([]);
    record.deliveries = [{ messageId: randomUUID(), at: Date.now() }];
    writeFileSync(file, JSON.stringify(records));
    await sys.killCli(s.id);
    await sys.startAgent();
    await sys.send(s.id, `after the mark ${executor}`);
    const msgs = await sys.waitMessages(s.id, (st) => st.length === 1 && st[0] === 'completed');
    const row = await sys.session(s.id);
    expect(row.state).toBe('Ready');
    const now = await sys.identity(s.id);
    expect(now.cliPid).not.toBe(old.cliPid);
    if (executor === 'claude') expect(row.nativeSessionId).toBe(oldNative);
    expect(reached(sys, executor, row.nativeSessionId!, msgs[0]!.text)).toBe(1);
    const types = await commandTypes(s.id);
    expect(types.filter((t) => t === 'start_session').length).toBeGreaterThanOrEqual(2);
    expect(types).not.toContain('resume_session');
    expect(
      sys
        .agentLog()
        .split('\n')
        .filter((l) => l.includes('agent.start_past_unbound_marks') && l.includes(s.id)),
    ).toHaveLength(1);
    await assertInvariants(sys, [s.id]);
  });

  it('CLI killed after its first message → exact resume as before, never started again', async () => {
    const s = await sys.createSession(executor, sys.folder(`typed-${executor}`));
    await sys.send(s.id, `typed ${executor} one`);
    await sys.waitMessages(s.id, (st) => st[0] === 'completed');
    const native = (await sys.session(s.id)).nativeSessionId!;
    await sys.killCli(s.id);
    await waitUntil('AwaitingRecovery recorded', async () => (await sys.evidence(s.id)).some((e) => e.toState === 'AwaitingRecovery'), 20_000);
    await sys.send(s.id, `typed ${executor} two`);
    await sys.waitMessages(s.id, (st) => st.length === 2 && st[1] === 'completed', 90_000);
    expect((await sys.session(s.id)).nativeSessionId).toBe(native);
    const types = await commandTypes(s.id);
    expect(types.filter((t) => t === 'start_session')).toHaveLength(1);
    expect(types).toContain('resume_session');
    expect(reached(sys, executor, native, `typed ${executor} two`)).toBe(1);
    await assertInvariants(sys, [s.id]);
  });
});

// Domain README decision 15: a session closed before any message has no journal to archive (the CLI
// writes it with the first prompt). That is said in the close evidence (`journal: 'none'`), and a
// resume fails at once with that reason — no CLI is started, the record stays as it was.
describe.each(['codex', 'claude'] as Executor[])('%s closed before any message', (executor) => {
  it('archived without an archive copy, the close evidence says journal none; resume fails cleanly with "nothing to resume"', async () => {
    const s = await sys.createSession(executor, sys.folder(`empty-${executor}`));
    await sys.waitState(s.id, 'Ready');
    const old = await sys.identity(s.id);
    await sys.close(s.id);
    const archived = await sys.waitState(s.id, 'Archived');
    expect(isRecordedProcess(old.cliPid, old.cliStartTime)).toBe(false);
    const close = (await sys.evidence(s.id)).filter((e) => e.event === 'process_exited_verified' && e.fromState === 'Closing').at(-1);
    const copy = await sys.db.archiveCopy.findUnique({ where: { sessionId: s.id } });
    // Codex writes nothing before the first prompt. Claude sometimes leaves, on exit, a journal of
    // only its mode lines: it is archived, and said to hold no conversation.
    if (copy) {
      expect(executor).toBe('claude');
      expect(close?.evidence).toMatchObject({ verified: true, journal: 'archived_empty' });
    } else {
      expect(close?.evidence).toMatchObject({ verified: true, journal: 'none' });
    }

    const commandsBefore = (await commandTypes(s.id)).length;
    await sys.resume(s.id);
    await waitUntil(
      'resume failure reported',
      async () => (await sys.outbox(s.id)).some((o) => (o.payload as { kind?: string }).kind === 'resume_failed'),
      45_000,
    );
    const after = await sys.waitState(s.id, 'Archived');
    const strip = (r: Record<string, unknown>) => {
      const { state, version, observerGeneration, updatedAt, ...rest } = r;
      return rest;
    };
    expect(strip(after)).toEqual(strip(archived));
    const notices = (await sys.outbox(s.id)).filter((o) => (o.payload as { kind?: string }).kind === 'resume_failed');
    expect(notices).toHaveLength(1);
    expect((notices[0]!.payload as { cause?: string }).cause).toMatch(/^nothing to resume/);
    // Only the resume command itself; the agent started no CLI for it.
    expect((await commandTypes(s.id)).slice(commandsBefore)).toEqual(['resume_session']);
    const cmd = await sys.db.agentCommand.findFirstOrThrow({ where: { sessionId: s.id, type: 'resume_session' }, select: { id: true } });
    await waitUntil('the resume answered', async () => sys.db.agentEvent.findFirst({ where: { commandId: cmd.id, type: 'command_result' } }), 20_000);
    const answer = await sys.db.agentEvent.findFirstOrThrow({ where: { commandId: cmd.id, type: 'command_result' } });
    expect(JSON.stringify(answer.payload)).toContain('"empty":true');
    expect(sys.turns(executor, archived.nativeSessionId ?? 'none')).toHaveLength(0);
  });
});
