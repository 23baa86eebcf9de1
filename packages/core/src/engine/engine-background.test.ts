import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, createSession, getActiveSession, jumpToSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

describe('background completion', () => {
  it('notifies with a jump target; jumping makes it active and the other background, no process touched', async () => {
    const bg = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/a', chatId: rig.chatId });
    await rig.emit(bg.id, 'session_ready', { identity: { pid: 1 } });
    const fg = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/b', chatId: rig.chatId });
    await rig.emit(fg.id, 'session_ready', { identity: { pid: 2 } });
    expect((await getActiveSession(rig.deps, { chatId: rig.chatId, nodeId: rig.nodeId }))?.id).toBe(fg.id);

    const m = await acceptMessage(rig.deps, { sessionId: bg.id, text: 'bg job', source: 'web' });
    await rig.engine.settle();
    await rig.emit(bg.id, 'turn_accepted', { messageId: m.message.id, nativeRecordId: 'r' });
    await rig.emit(bg.id, 'turn_final', { nativeTurnId: 'r', text: 'bg answer' });
    await rig.emit(bg.id, 'turn_completed', { nativeTurnId: 'r' });
    const done = await listOutbox(rig.db, { sessionId: bg.id, kind: 'background_done' });
    expect(done).toHaveLength(1);
    expect(done[0]?.payload).toMatchObject({ jump: { sessionId: bg.id, nodeId: rig.nodeId } });
    const final = await listOutbox(rig.db, { sessionId: bg.id, kind: 'final' });
    expect(final[0]?.payload).toMatchObject({ active: false, text: 'bg answer' });

    const commandsBefore = await rig.db.agentCommand.count();
    const r = await jumpToSession(rig.deps, { chatId: rig.chatId, sessionId: bg.id });
    expect(r.previousActiveId).toBe(fg.id);
    expect(r.lastFinal).toEqual({ messageId: m.message.id, text: 'bg answer' });
    expect((await getActiveSession(rig.deps, { chatId: rig.chatId, nodeId: rig.nodeId }))?.id).toBe(bg.id);
    await rig.engine.settle();
    expect(await rig.db.agentCommand.count()).toBe(commandsBefore);
    expect((await rig.session(fg.id)).state).toBe('Ready');

    // The now-active session's next completion produces no background notice.
    const n = await acceptMessage(rig.deps, { sessionId: bg.id, text: 'again', source: 'web' });
    await rig.engine.settle();
    await rig.emit(bg.id, 'turn_accepted', { messageId: n.message.id, nativeRecordId: 'r2' });
    await rig.emit(bg.id, 'turn_completed', { nativeTurnId: 'r2' });
    expect(await listOutbox(rig.db, { sessionId: bg.id, kind: 'background_done' })).toHaveLength(1);
  });
});
