import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeRetryDelay } from '../domain/index.ts';
import { closeSession, createSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

const closes = async (id: string) => (await rig.commands(id)).filter((c) => c.type === 'close_session').length;

describe('Closing never waits on a reconnection alone', () => {
  it('a close the agent could not verify is asked for again after a minute, until the exit is proven; then it is archived and nothing is asked again', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
    await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
    await closeSession(rig.deps, { sessionId: s.id });
    expect(await closes(s.id)).toBe(1);
    // A process lingers: the agent answers, but cannot prove the exit.
    await rig.emit(s.id, 'session_closed', { evidence: { verified: false, pids: '100', lingering: '101', paneDead: true } });
    expect((await rig.session(s.id)).state).toBe('Closing');
    rig.clock.advance(closeRetryDelay(0) - 1_000);
    await rig.engine.settle();
    expect(await closes(s.id)).toBe(1);
    rig.clock.advance(1_000);
    await rig.engine.settle();
    expect(await closes(s.id)).toBe(2);
    await rig.emit(s.id, 'session_closed', { evidence: { verified: true, pid: 100, paneDead: true, journal: 'none' } });
    expect((await rig.session(s.id)).state).toBe('Archived');
    rig.clock.advance(10 * closeRetryDelay(1));
    await rig.engine.settle();
    expect(await closes(s.id)).toBe(2);
    expect(await rig.db.sessionTimer.count({ where: { sessionId: s.id } })).toBe(0);
  });
});
