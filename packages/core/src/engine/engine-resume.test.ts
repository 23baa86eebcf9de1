import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, listArchive, resumeSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

async function discovered(nativeSessionId: string) {
  await rig.emit(undefined, 'discovery_diff', {
    added: [{ executor: 'claude', nativeSessionId, folder: '/work/old', title: 'old work', lastActivityAt: rig.clock.t - 86_400_000 }],
    changed: [],
    removed: [],
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

  // Discovery's `removed`: the CLI's own journal was deleted on the computer.
  it('a discovered session whose journal was deleted is marked, refuses a resume at once without a copy, and is cleared when found again', async () => {
    const nativeSessionId = '33333333-3333-4333-8333-333333333333';
    const item = await discovered(nativeSessionId);
    rig.clock.advance(5_000);
    await rig.emit(undefined, 'discovery_diff', { added: [], changed: [], removed: [{ executor: 'claude', nativeSessionId }] });
    const gone = await rig.db.session.findUniqueOrThrow({ where: { id: item.id } });
    expect(gone.nativeGoneAt?.getTime()).toBe(rig.clock.t);
    expect(gone.state).toBe('Archived');
    const listed = (await listArchive(rig.deps, { nodeId: rig.nodeId })).items.find((i) => i.id === item.id);
    expect(listed?.nativeGoneAt?.getTime()).toBe(rig.clock.t);

    await expect(resumeSession(rig.deps, { sessionId: item.id })).rejects.toMatchObject({ code: 'ILLEGAL_TRANSITION', userMessage: 'sessions.native_gone' });
    expect(await rig.commands(item.id)).toHaveLength(0);
    expect((await rig.session(item.id)).state).toBe('Archived');

    // With Bria's own copy the agent puts the journal back: the resume is asked for as usual.
    await rig.db.archiveCopy.create({ data: { sessionId: item.id, path: '/var/lib/bria/archive/x.jsonl', sizeBytes: 10, sha256: 'a'.repeat(64) } });
    expect((await resumeSession(rig.deps, { sessionId: item.id })).state).toBe('Resuming');
    await rig.emit(item.id, 'resume_failed', { reason: 'test' });

    // Found again (the file came back): the mark is cleared.
    await rig.emit(undefined, 'discovery_diff', {
      added: [{ executor: 'claude', nativeSessionId, folder: '/work/old', title: 'old work' }],
      changed: [],
      removed: [],
    });
    expect((await rig.db.session.findUniqueOrThrow({ where: { id: item.id } })).nativeGoneAt).toBeNull();
  });

  // An agent reported the session before its journal named the folder; a later report fills it.
  it('a discovered session entered without its folder gets it from a later report, and one never named is not entered', async () => {
    const nativeSessionId = '44444444-4444-4444-8444-444444444444';
    await rig.emit(undefined, 'discovery_diff', {
      added: [{ executor: 'claude', nativeSessionId: '55555555-5555-4555-8555-555555555555', folder: '' }],
      changed: [],
      removed: [],
    });
    expect(await rig.db.session.count({ where: { nativeSessionId: '55555555-5555-4555-8555-555555555555' } })).toBe(0);

    // A record left without a folder (by an earlier hub) is completed by the next report.
    const item = await discovered(nativeSessionId);
    await rig.db.session.update({ where: { id: item.id }, data: { folder: '' } });
    await rig.emit(undefined, 'discovery_diff', {
      added: [],
      changed: [{ executor: 'claude', nativeSessionId, folder: '/work/later', firstPrompt: 'hi' }],
      removed: [],
    });
    expect((await rig.session(item.id)).folder).toBe('/work/later');
    // A known folder is never replaced.
    await rig.emit(undefined, 'discovery_diff', { added: [], changed: [{ executor: 'claude', nativeSessionId, folder: '/elsewhere' }], removed: [] });
    expect((await rig.session(item.id)).folder).toBe('/work/later');
    expect((await resumeSession(rig.deps, { sessionId: item.id })).state).toBe('Resuming');
    expect((await rig.commands(item.id)).at(-1)).toMatchObject({ type: 'resume_session', payload: { folder: '/work/later', nativeSessionId } });
  });
});
