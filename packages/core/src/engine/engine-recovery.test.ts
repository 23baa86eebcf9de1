import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listEvidence } from '../db/repos/evidence.ts';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, createSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

async function runningSession() {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '7' } });
  const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'job', source: 'web' });
  await rig.engine.settle();
  await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: 'r1' });
  return { s, a };
}
const deliverIds = async (id: string) => (await rig.commands(id)).filter((c) => c.type === 'deliver').map((c) => c.payload.messageId);

describe('recovery', () => {
  it('process crash → AwaitingRecovery → exact resume returns to Running; nothing accepted is re-sent', async () => {
    const { s, a } = await runningSession();
    await rig.emit(s.id, 'process_exited', { pids: [100], exitStatus: 137, paneDead: true, verified: true });
    let row = await rig.session(s.id);
    expect(row.state).toBe('AwaitingRecovery');
    expect(row.resumeState).toBe('Running');
    expect(row.observerGeneration).toBe(2);
    const resume = (await rig.commands(s.id)).at(-1);
    expect(resume).toMatchObject({ type: 'resume_session', payload: { nativeSessionId: row.nativeSessionId, generation: 2 } });
    const b = await acceptMessage(rig.deps, { sessionId: s.id, text: 'while down', source: 'web' });
    await rig.engine.settle();
    expect(await deliverIds(s.id)).toEqual([a.message.id]);

    await rig.emit(s.id, 'resume_confirmed', { identity: { tmuxPane: '%2', pid: 200 } });
    row = await rig.session(s.id);
    expect(row.state).toBe('Running');
    expect(row.nativeSessionId).toBe((await rig.session(s.id)).nativeSessionId);
    // The accepted request is observed by id, never re-sent; the waiting one follows in order.
    expect(await deliverIds(s.id)).toEqual([a.message.id, b.message.id]);
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['accepted', 'leased']);
    expect(await rig.db.sessionTimer.count({ where: { sessionId: s.id, name: 'recovery_retry' } })).toBe(0);
    const progress = (await listOutbox(rig.db, { sessionId: s.id })).filter((o) => o.payload.kind === 'progress' && o.payload.topic === 'recovery');
    expect(progress.map((o) => (o.payload.kind === 'progress' ? o.payload.phase : ''))).toEqual(['started', 'done']);
  });

  it('node offline keeps AwaitingRecovery indefinitely; the node coming back re-attaches the same session', async () => {
    const { s, a } = await runningSession();
    await rig.db.node.update({ where: { id: rig.nodeId }, data: { online: false } });
    await rig.engine.settle();
    expect((await rig.session(s.id)).state).toBe('AwaitingRecovery');
    for (let i = 0; i < 30; i++) {
      rig.clock.advance(5 * 60_000);
      await rig.engine.settle();
    }
    const row = await rig.session(s.id);
    expect(row.state).toBe('AwaitingRecovery');
    expect(row.archivedAt).toBeNull();
    expect(await rig.db.session.count()).toBe(1);
    expect((await rig.messages(s.id))[0]?.status).toBe('accepted');

    await rig.db.node.update({ where: { id: rig.nodeId }, data: { online: true, agentInstanceId: 'agent-2' } });
    await rig.engine.settle();
    const attach = (await rig.commands(s.id)).at(-1);
    const gen = (await rig.session(s.id)).observerGeneration;
    expect(attach).toMatchObject({ type: 'attach_session', payload: { generation: gen, identity: { tmuxPane: '%1', pid: 100, pidStartTime: '7' } } });
    await rig.emit(s.id, 'reattached', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '7' } });
    expect((await rig.session(s.id)).state).toBe('Running');
    expect(await deliverIds(s.id)).toEqual([a.message.id]);
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'r1', text: 'done' });
    await rig.emit(s.id, 'turn_completed', { nativeTurnId: 'r1' });
    expect((await rig.session(s.id)).state).toBe('Ready');
  });

  it('an identity mismatch never authorizes a replacement: it keeps retrying the exact attach', async () => {
    const { s } = await runningSession();
    await rig.emit(s.id, 'observer_lost', { reason: 'agent restart' });
    rig.clock.advance(2_000);
    await rig.engine.settle();
    const before = (await rig.commands(s.id)).length;
    await rig.emit(s.id, 'identity_mismatch', { reason: 'identity_mismatch' });
    expect((await rig.session(s.id)).state).toBe('AwaitingRecovery');
    expect((await rig.commands(s.id)).filter((c) => c.type === 'start_session')).toHaveLength(1);
    rig.clock.advance(10_000);
    await rig.engine.settle();
    const after = await rig.commands(s.id);
    expect(after.length).toBeGreaterThan(before);
    expect(after.slice(before).every((c) => c.type === 'attach_session')).toBe(true);
    expect((await listEvidence(rig.db, s.id)).some((e) => e.event === 'reattach_refused')).toBe(true);
  });
});
