import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, createSession, listOpenSessions } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});
const HOURS_12 = 12 * 3_600_000;

async function ready() {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { pid: 100 } });
  return s;
}

describe('lifetime', () => {
  it('expiry while idle closes and archives exactly once', async () => {
    const s = await ready();
    expect((await rig.session(s.id)).lifetimeDeadline?.getTime()).toBe(rig.clock.t + HOURS_12);
    rig.clock.advance(HOURS_12 - 1);
    await rig.engine.settle();
    expect((await rig.session(s.id)).state).toBe('Ready');
    rig.clock.advance(1);
    await rig.engine.settle();
    expect((await rig.session(s.id)).state).toBe('Closing');
    expect((await rig.commands(s.id)).at(-1)?.type).toBe('close_session');
    await expect(acceptMessage(rig.deps, { sessionId: s.id, text: 'late', source: 'web' })).rejects.toMatchObject({ code: 'SESSION_NOT_ACCEPTING' });
    await rig.emit(s.id, 'session_closed', { evidence: { verified: true, pid: 100 } });
    expect((await rig.session(s.id)).state).toBe('Archived');
    expect(await listOpenSessions(rig.deps, { nodeId: rig.nodeId })).toEqual([]);
    expect(await rig.db.session.count({ where: { state: 'Archived' } })).toBe(1);
    expect(await rig.db.message.count()).toBe(0);
  });

  it('expiry while working: work finishes, new input is refused and never queued, then close', async () => {
    const s = await ready();
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'job', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: 'r1' });
    rig.clock.advance(HOURS_12);
    await rig.engine.settle();
    expect((await rig.session(s.id)).state).toBe('ClosingAfterWork');
    await expect(acceptMessage(rig.deps, { sessionId: s.id, text: 'refused', source: 'telegram', sourceKey: 'tg:9' })).rejects.toMatchObject({
      code: 'LIFETIME_EXPIRED',
    });
    expect(await rig.db.message.count()).toBe(1);
    expect(await listOutbox(rig.db, { sessionId: s.id, kind: 'expiry_refusal' })).toHaveLength(1);
    expect((await rig.commands(s.id)).map((c) => c.type)).not.toContain('interrupt');
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'r1', text: 'finished' });
    await rig.emit(s.id, 'turn_completed', { nativeTurnId: 'r1' });
    expect((await rig.session(s.id)).state).toBe('Closing');
    const m = (await rig.messages(s.id))[0];
    expect([m?.status, m?.finalText]).toEqual(['completed', 'finished']);
    await rig.emit(s.id, 'session_closed', { evidence: { verified: true } });
    expect((await rig.session(s.id)).state).toBe('Archived');
  });

  it('input arriving after the deadline but before the timer fired is refused too', async () => {
    const s = await ready();
    rig.clock.advance(HOURS_12 + 5);
    await expect(acceptMessage(rig.deps, { sessionId: s.id, text: 'x', source: 'web' })).rejects.toMatchObject({ code: 'LIFETIME_EXPIRED' });
    expect(await rig.db.message.count()).toBe(0);
  });
});
