import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listEvidence } from '../db/repos/evidence.ts';
import { acceptMessage, createSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

async function readyWithTwo() {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'codex', folder: '/work/proj', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { nativeSessionId: 'thread-1', tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
  const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'first', source: 'web' });
  const b = await acceptMessage(rig.deps, { sessionId: s.id, text: 'second', source: 'web' });
  await rig.engine.settle();
  return { s, a: a.message.id, b: b.message.id };
}
/** Every `deliver` command written for a message, oldest first. */
const delivers = async (sessionId: string, messageId: string) =>
  (await rig.commands(sessionId)).filter((c) => c.type === 'deliver' && c.payload.messageId === messageId);
/** The agent's answer for a hand-over that never reached the CLI (as `SessionControl.deliver` sends it). */
const notTyped = (sessionId: string, commandId: string, messageId: string, extra: Record<string, unknown> = {}) =>
  rig.emit(
    sessionId,
    'command_result',
    { command: 'deliver', ok: false, typed: false, messageId, error: 'cannot deliver while exited', ...extra },
    undefined,
    commandId,
  );
const status = async (sessionId: string) => (await rig.messages(sessionId)).map((m) => m.status);
const untypedEvidence = async (sessionId: string) =>
  (await listEvidence(rig.db, sessionId)).filter((e) => e.event === 'delivery_not_typed').map((e) => e.evidence as Record<string, unknown>);

describe('a hand-over the agent answers typed: false', () => {
  it('is not handed over again in a loop: one deliver per wait, the wait grows, a timer ends it; nothing else overtakes it', async () => {
    const { s, a } = await readyWithTwo();
    expect(await delivers(s.id, a)).toHaveLength(1);
    // The chaos pattern: the agent keeps refusing; before the fix every answer re-leased at once.
    for (let i = 0; i < 5; i++) {
      const last = (await delivers(s.id, a)).at(-1)!;
      await notTyped(s.id, last.id, a);
      rig.clock.advance(150);
      await rig.engine.settle();
    }
    expect(await delivers(s.id, a)).toHaveLength(1);
    expect(await status(s.id)).toEqual(['pending', 'pending']);
    // A new message wakes the dispatcher (pumpIfNeeded): still nothing is handed over, and FIFO holds.
    await acceptMessage(rig.deps, { sessionId: s.id, text: 'third', source: 'web' });
    await rig.engine.settle();
    expect((await rig.commands(s.id)).filter((c) => c.type === 'deliver')).toHaveLength(1);
    expect(await rig.db.sessionTimer.count({ where: { sessionId: s.id, name: 'delivery_retry' } })).toBe(1);

    rig.clock.advance(1_000 - 750); // exactly the first wait (1 s) after the refusal
    await rig.engine.settle();
    const second = await delivers(s.id, a);
    expect(second).toHaveLength(2);
    expect(second[1]!.payload.generation).toBe((await rig.session(s.id)).observerGeneration);
    expect(await status(s.id)).toEqual(['leased', 'pending', 'pending']);
    expect(await rig.db.sessionTimer.count({ where: { sessionId: s.id, name: 'delivery_retry' } })).toBe(0);

    // Refused again at the same session version: the wait doubles.
    await notTyped(s.id, second[1]!.id, a);
    rig.clock.advance(1_999);
    await rig.engine.settle();
    expect(await delivers(s.id, a)).toHaveLength(2);
    rig.clock.advance(1);
    await rig.engine.settle();
    expect(await delivers(s.id, a)).toHaveLength(3);
    expect((await untypedEvidence(s.id)).map((e) => [e.refusals, e.waitMs, e.reason])).toEqual([
      [1, 1000, 'cannot deliver while exited'],
      [2, 2000, 'cannot deliver while exited'],
    ]);

    // Taken this time: the receipt binds it; it was never handed over twice at once.
    await rig.emit(s.id, 'turn_accepted', { messageId: a, nativeTurnId: 'turn-1' });
    const m = (await rig.messages(s.id))[0]!;
    expect(m.status).toBe('accepted');
    expect(m.deliveryId).toBe((await delivers(s.id, a))[2]!.id);
    expect(m.leaseOwner).toBeNull();
    expect(m.leaseUntil).toBeNull();
  });

  it('a transition ends the wait at once: after the CLI exit and an exact resume the message is delivered under the new generation', async () => {
    const { s, a, b } = await readyWithTwo();
    const first = (await delivers(s.id, a))[0]!;
    await notTyped(s.id, first.id, a);
    expect(await status(s.id)).toEqual(['pending', 'pending']);
    // The agent then reports why: the CLI is gone. No delivery while the session recovers.
    await rig.emit(s.id, 'process_exited', { pids: [100], exitStatus: 137, paneDead: true, verified: true });
    let row = await rig.session(s.id);
    expect(row.state).toBe('AwaitingRecovery');
    expect(await delivers(s.id, a)).toHaveLength(1);
    // Resumed before the wait would have ended (the clock has not moved): handed over at once.
    await rig.emit(s.id, 'resume_confirmed', { identity: { nativeSessionId: 'thread-1', tmuxPane: '%2', pid: 200, pidStartTime: '2' } });
    row = await rig.session(s.id);
    expect(row.state).toBe('Ready');
    const again = await delivers(s.id, a);
    expect(again).toHaveLength(2);
    expect(again[1]!.payload.generation).toBe(row.observerGeneration);
    expect(row.observerGeneration).toBeGreaterThan(first.payload.generation as number);
    expect(await status(s.id)).toEqual(['leased', 'pending']);
    expect(await delivers(s.id, b)).toHaveLength(0);
    // The timer of the old wait firing later changes nothing.
    rig.clock.advance(5_000);
    await rig.engine.settle();
    expect(await delivers(s.id, a)).toHaveLength(2);
  });

  it('an answer about an older observer generation is no reason to wait: handed over again at once under the current one', async () => {
    const { s, a } = await readyWithTwo();
    const first = (await delivers(s.id, a))[0]!;
    await rig.emit(s.id, 'observer_lost', { reason: 'agent restart' });
    expect((await rig.session(s.id)).state).toBe('AwaitingRecovery');
    rig.clock.advance(2_000); // the recovery timer asks for an exact attach under a new generation
    await rig.engine.settle();
    expect((await rig.commands(s.id)).at(-1)?.type).toBe('attach_session');
    await rig.emit(s.id, 'reattached', { identity: { nativeSessionId: 'thread-1', tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
    const row = await rig.session(s.id);
    expect(row.state).toBe('Ready');
    expect(row.observerGeneration).toBeGreaterThan(first.payload.generation as number);
    expect(await delivers(s.id, a)).toHaveLength(1);
    // The restarted agent knows the newer generation and refuses the old command as stale.
    await notTyped(s.id, first.id, a, { stale: true, error: `stale generation ${String(first.payload.generation)} (current ${row.observerGeneration})` });
    const again = await delivers(s.id, a);
    expect(again).toHaveLength(2);
    expect(again[1]!.payload.generation).toBe(row.observerGeneration);
    expect((await untypedEvidence(s.id)).map((e) => [e.waitMs, e.stale])).toEqual([[0, true]]);
  });
});
