import { existsSync } from 'node:fs';
import { waitUntil } from '@bria/testkit/wait';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Executor, startSystem, type System } from '../../packages/testkit/src/system.ts';
import { assertInvariants, nativeJournal, reached } from './invariants.ts';

// The agent SIGKILLs itself at an exact step of a `deliver` (test seam `BRIA_AGENT_TEST_CRASH`,
// apps/node-agent/src/test-crash.ts). After its restart the command must be answered, never run
// again: the hub learns the outcome from evidence, the queue moves on, and the model sees the text
// at most once (without an answer the lease would be held for ever).
let sys: System;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(async () => {
  await sys?.dispose();
});

const detail = async (sessionId: string) => (await sys.messages(sessionId)).map((m) => `${m.status}:${m.outcomeDetail ?? ''}`);

/** Starts an agent that dies at `point` on its first delivery, sends two messages, restarts it clean. */
async function crashDuringDelivery(executor: Executor, point: string, tag: string) {
  await sys.killAgent();
  await sys.startAgent({ env: { BRIA_AGENT_TEST_CRASH: point } });
  const s = await sys.createSession(executor, sys.folder(`crash-deliver-${tag}-${executor}`));
  await sys.waitState(s.id, 'Ready');
  const died = sys.agentExited();
  const first = `${tag} ${executor} first`;
  const second = `${tag} ${executor} second`;
  await sys.send(s.id, first);
  await sys.send(s.id, second);
  expect(await died).toBe('SIGKILL');
  // Killed holding the lease (its receipt may have left just before the kill). The second waits —
  // or, when the receipt reached the hub before the node's loss did, it may have been handed over
  // as a follow-up of the running turn (domain nextDeliverable, either CLI; seen with Claude on a
  // loaded machine); the restarted agent then runs that deliver once.
  const held = (await sys.messages(s.id)).map((m) => m.status);
  expect(['leased', 'accepted']).toContain(held[0]);
  expect(held[0] === 'accepted' ? ['pending', 'leased'] : ['pending']).toContain(held[1]);
  await sys.startAgent();
  const msgs = await sys
    .waitMessages(s.id, (st) => st[1] === 'completed', 90_000)
    .catch(async (err: Error) => {
      const ev = (await sys.evidence(s.id)).map((e) => `${e.event}:${e.toState}`).join(' ');
      throw new Error(
        `${err.message}; messages ${(await detail(s.id)).join(', ')}; state ${(await sys.session(s.id)).state}; evidence ${ev}; agent log tail ${sys.agentLog().slice(-3000)}`,
      );
    });
  const native = (await sys.session(s.id)).nativeSessionId!;
  return { s, msgs, native, first, second };
}

describe.each(['claude', 'codex'] as Executor[])('%s: agent SIGKILLed in the middle of a deliver', { timeout: 180_000 }, (executor) => {
  it('after recording it, before typing: answered not typed, handed over again once, the queue moves on', async () => {
    const { s, msgs, native, first, second } = await crashDuringDelivery(executor, 'deliver:received', 'untyped');
    expect(msgs[0]!.status).toBe('completed');
    expect(reached(sys, executor, native, first)).toBe(1);
    expect(reached(sys, executor, native, second)).toBe(1);
    const ev = (await sys.evidence(s.id)).map((e) => e.event);
    expect(ev).toContain('delivery_not_typed');
    await assertInvariants(sys, [s.id]);
  });

  it('after the paste reached the CLI, before the receipt was recorded: unknown, never typed again, the queue moves on', async () => {
    const { s, msgs, native, first, second } = await crashDuringDelivery(executor, 'deliver:receipt', 'pasted');
    const row = (await sys.messages(s.id))[0]!;
    expect(row.status).toBe('unknown');
    expect(row.outcomeDetail).toBe('delivery_interrupted');
    expect(msgs[0]!.id).toBe(row.id);
    expect(reached(sys, executor, native, first)).toBe(1);
    expect(reached(sys, executor, native, second)).toBe(1);
    expect((await sys.evidence(s.id)).some((e) => e.event === 'delivery_unknown')).toBe(true);
    await assertInvariants(sys, [s.id]);
  });

  it('after the receipt was recorded: accepted from that receipt and completed, never typed again', async () => {
    const { s, msgs, native, first, second } = await crashDuringDelivery(executor, 'deliver:accepted', 'accepted');
    expect(msgs[0]!.status).toBe('completed');
    expect(msgs[0]!.nativeTurnId ?? msgs[0]!.nativeRecordId).toBeTruthy();
    expect(reached(sys, executor, native, first)).toBe(1);
    expect(reached(sys, executor, native, second)).toBe(1);
    await assertInvariants(sys, [s.id]);
  });
});

describe.each(['claude', 'codex'] as Executor[])('%s: agent SIGKILLed while starting a new session', { timeout: 180_000 }, (executor) => {
  it('the interrupted start is answered, the session is started again (never resumed), and the message stored meanwhile runs once', async () => {
    await sys.killAgent();
    await sys.startAgent({ env: { BRIA_AGENT_TEST_CRASH: 'start:launching' } });
    const died = sys.agentExited();
    const s = await sys.createSession(executor, sys.folder(`crash-start-${executor}`));
    const text = `started after a crash ${executor}`;
    await sys.send(s.id, text);
    expect(await died).toBe('SIGKILL');
    expect((await sys.session(s.id)).state).not.toBe('Ready');
    await sys.startAgent();
    const msgs = await sys
      .waitMessages(s.id, (st) => st[0] === 'completed', 90_000)
      .catch(async (err: Error) => {
        const ev = (await sys.evidence(s.id)).map((e) => `${e.event}:${e.toState}`).join(' ');
        throw new Error(`${err.message}; messages ${(await detail(s.id)).join(', ')}; state ${(await sys.session(s.id)).state}; evidence ${ev}`);
      });
    const row = await sys.session(s.id);
    expect(row.state).toBe('Ready');
    const native = row.nativeSessionId!;
    expect(reached(sys, executor, native, text)).toBe(1);
    expect(msgs).toHaveLength(1);
    // Neither a resume of a conversation that never existed nor a second CLI: one live pane for it.
    expect((await sys.evidence(s.id)).some((e) => e.event === 'resume_failed')).toBe(false);
    await assertInvariants(sys, [s.id]);
  });
});

describe('agent SIGKILLed in the middle of a close', { timeout: 180_000 }, () => {
  it('a Codex session closed before its first message: archived on the exit the restarted agent finds, saying there was no journal (chaos seed 200010)', async () => {
    await sys.killAgent();
    await sys.startAgent({ env: { BRIA_AGENT_TEST_CRASH: 'close:ended' } });
    const s = await sys.createSession('codex', sys.folder('crash-close-codex'));
    await sys.waitState(s.id, 'Ready');
    const died = sys.agentExited();
    await sys.close(s.id);
    expect(await died).toBe('SIGKILL');
    expect((await sys.session(s.id)).state).toBe('Closing');
    await sys.startAgent();
    await sys.waitState(s.id, 'Archived');
    // Codex writes its rollout only with the first prompt: no copy, and the evidence says why.
    expect(await sys.db.archiveCopy.findUnique({ where: { sessionId: s.id } })).toBeNull();
    const exit = (await sys.evidence(s.id)).filter((e) => e.event === 'process_exited_verified' && e.fromState === 'Closing').at(-1);
    expect(exit?.evidence).toMatchObject({ verified: true, journal: 'none' });
  });

  it('a Claude session with a conversation: archived with its journal copied', async () => {
    await sys.killAgent();
    await sys.startAgent({ env: { BRIA_AGENT_TEST_CRASH: 'close:ended' } });
    const s = await sys.createSession('claude', sys.folder('crash-close-claude'));
    await sys.waitState(s.id, 'Ready');
    await sys.send(s.id, 'before a crashed close');
    await sys.waitMessages(s.id, (st) => st[0] === 'completed', 60_000);
    const died = sys.agentExited();
    await sys.close(s.id);
    expect(await died).toBe('SIGKILL');
    await sys.startAgent();
    await sys.waitState(s.id, 'Archived');
    const exit = (await sys.evidence(s.id)).filter((e) => e.event === 'process_exited_verified' && e.fromState === 'Closing').at(-1);
    expect(exit?.evidence).toMatchObject({ verified: true });
    await waitUntil('the archive copy', async () => (await sys.db.archiveCopy.findUnique({ where: { sessionId: s.id } })) !== null, 30_000);
  });
});

describe('codex identity', () => {
  it('the rollout path, known only once the first prompt created it, is stored with the identity and names the real file', async () => {
    if (!sys.agentPid) await sys.startAgent();
    const s = await sys.createSession('codex', sys.folder('codex-identity'));
    await sys.waitState(s.id, 'Ready');
    expect((await sys.identity(s.id)).journalPath).toBeFalsy();
    await sys.send(s.id, 'identity codex first');
    await sys.waitMessages(s.id, (st) => st[0] === 'completed', 60_000);
    const id = await sys.identity(s.id);
    const native = (await sys.session(s.id)).nativeSessionId!;
    expect(id.journalPath).toBe(nativeJournal(sys, native));
    expect(existsSync(id.journalPath!)).toBe(true);
  });
});
