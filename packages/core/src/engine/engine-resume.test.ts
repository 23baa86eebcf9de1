import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, listArchive, resumeSession } from '../services/sessions/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => { rig = await engineRig(); });
afterEach(async () => { await rig.close(); });

async function discovered(nativeSessionId: string) {
  await rig.emit(undefined, 'discovery_diff', {
    added: [{ executor: 'claude', nativeSessionId, folder: '/work/old', title: 'old work', lastActivityAt: rig.clock.t - 86_400_000 }], changed: [], removed: [],
  });
  const page = await listArchive(rig.deps, { nodeId: rig.nodeId });
  const item = page.items.find((i) => i.nativeSessionId === nativeSessionId);
  if (!item) throw new Error('not discovered');
  return item;
}

describe('resume', () => {
  it('exact resume reopens the original native session and restarts the lifetime at success', async () => {
    const item = await discovered('11111111-1111-4111-8111-111111111111');
    expect(item.launchSource).toBe('discovered');
    const r = await resumeSession(rig.deps, { sessionId: item.id });
    expect(r.state).toBe('Resuming');
    const cmd = (await rig.commands(item.id)).at(-1);
    expect(cmd).toMatchObject({ type: 'resume_session', payload: { executor: 'claude', folder: '/work/old', nativeSessionId: item.nativeSessionId } });
    rig.clock.advance(30_000);
    await rig.emit(item.id, 'resume_confirmed', { identity: { pid: 9 } });
    const row = await rig.session(item.id);
    expect(row.state).toBe('Ready');
    expect(row.lifetimeDeadline?.getTime()).toBe(rig.clock.t + 12 * 3_600_000);
    expect(row.nativeSessionId).toBe(item.nativeSessionId);
  });

  it('resume failure leaves the archive record unchanged and produces exactly one notice', async () => {
    const item = await discovered('22222222-2222-4222-8222-222222222222');
    const before = await rig.session(item.id);
    await resumeSession(rig.deps, { sessionId: item.id });
    const m = await acceptMessage(rig.deps, { sessionId: item.id, text: 'queued during resume', source: 'web' });
    await rig.emit(item.id, 'resume_failed', { reason: 'No conversation found with session ID' });
    const after = await rig.session(item.id);
    const strip = (r: typeof before) => ({ ...r, state: null, version: null, observerGeneration: null, updatedAt: null });
    expect(after.state).toBe('Archived');
    expect(strip(after)).toEqual(strip(before));
    const notices = await listOutbox(rig.db, { sessionId: item.id, kind: 'resume_failed' });
    expect(notices).toHaveLength(1);
    expect(notices[0]?.payload).toMatchObject({ cause: 'No conversation found with session ID' });
    expect(await listOutbox(rig.db, { sessionId: item.id, kind: 'card_update' })).toHaveLength(0);
    expect((await rig.messages(item.id)).map((x) => [x.id, x.status])).toEqual([[m.message.id, 'failed']]);
    expect(await rig.db.session.count()).toBe(1);
    expect((await rig.commands(item.id)).filter((c) => c.type === 'start_session')).toHaveLength(0);
  });
});
