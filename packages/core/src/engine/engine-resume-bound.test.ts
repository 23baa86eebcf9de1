import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOutbox } from '../db/repos/outbox.ts';
import { RESUME_ANSWER_MS, RESUME_NO_ANSWER } from '../domain/index.ts';
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
  const item = (await listArchive(rig.deps, { nodeId: rig.nodeId })).items.find((i) => i.nativeSessionId === nativeSessionId);
  if (!item) throw new Error('not discovered');
  return item;
}

const strip = (r: Record<string, unknown>) => ({ ...r, state: null, version: null, observerGeneration: null, updatedAt: null });
const notices = (sessionId: string) => listOutbox(rig.db, { sessionId, kind: 'resume_failed' });

describe('every resume ends: Ready, or ResumeFailed with one notice naming the cause', () => {
  it('a record without a folder is refused before anything is sent to its computer', async () => {
    const item = await discovered('44444444-4444-4444-8444-444444444444');
    await rig.db.session.update({ where: { id: item.id }, data: { folder: '' } });
    await expect(resumeSession(rig.deps, { sessionId: item.id })).rejects.toMatchObject({ code: 'ILLEGAL_TRANSITION', userMessage: 'sessions.no_folder' });
    expect(await rig.commands(item.id)).toHaveLength(0);
    expect((await rig.session(item.id)).state).toBe('Archived');
  });

  it('a resume the agent never answers fails at its bound with one notice and the record unchanged', async () => {
    const item = await discovered('55555555-5555-4555-8555-555555555555');
    const before = await rig.session(item.id);
    await resumeSession(rig.deps, { sessionId: item.id });
    const m = await acceptMessage(rig.deps, { sessionId: item.id, text: 'queued during resume', source: 'web' });
    rig.clock.advance(RESUME_ANSWER_MS - 1_000);
    await rig.engine.settle();
    expect((await rig.session(item.id)).state).toBe('Resuming');
    rig.clock.advance(1_000);
    await rig.engine.settle();
    const after = await rig.session(item.id);
    expect(after.state).toBe('Archived');
    expect(strip(after)).toEqual(strip(before));
    const sent = await notices(item.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.payload).toMatchObject({ cause: RESUME_NO_ANSWER });
    expect((await rig.messages(item.id)).map((x) => [x.id, x.status])).toEqual([[m.message.id, 'failed']]);
    expect(await rig.db.sessionTimer.count({ where: { sessionId: item.id } })).toBe(0);
  });

  it('a resume command the agent refuses without a resume fact fails at once with its answer as the cause', async () => {
    const item = await discovered('66666666-6666-4666-8666-666666666666');
    await resumeSession(rig.deps, { sessionId: item.id });
    const cmd = (await rig.commands(item.id)).at(-1)!;
    await rig.emit(item.id, 'command_result', { command: 'resume_session', ok: false, error: 'invalid payload: folder: Too small' }, undefined, cmd.id);
    expect((await rig.session(item.id)).state).toBe('Archived');
    const sent = await notices(item.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.payload).toMatchObject({ cause: expect.stringContaining('invalid payload: folder') });
    // An agent that sent its own resume_failed first: still one notice.
    await resumeSession(rig.deps, { sessionId: item.id });
    const again = (await rig.commands(item.id)).at(-1)!;
    await rig.emit(item.id, 'resume_failed', { reason: 'folder /work/old does not exist' });
    await rig.emit(item.id, 'command_result', { command: 'resume_session', ok: false, error: 'folder /work/old does not exist' }, undefined, again.id);
    expect(await notices(item.id)).toHaveLength(2);
    expect(await rig.db.sessionEvidence.count({ where: { sessionId: item.id, event: 'resume_failed' } })).toBe(2);
  });

  it('a resume that lost its computer is recovered by resuming again (no re-attach loop) and still ends at its bound', async () => {
    const item = await discovered('77777777-7777-4777-8777-777777777777');
    await resumeSession(rig.deps, { sessionId: item.id });
    await rig.db.node.update({ where: { id: rig.nodeId }, data: { online: false } });
    await rig.engine.settle();
    expect(await rig.session(item.id)).toMatchObject({ state: 'AwaitingRecovery', resumeState: 'Resuming' });
    await rig.db.node.update({ where: { id: rig.nodeId }, data: { online: true } });
    await rig.engine.settle();
    for (let i = 0; i < 6; i++) {
      rig.clock.advance(10_000);
      await rig.engine.settle();
    }
    const types = (await rig.commands(item.id)).map((c) => c.type);
    expect(types.length).toBeGreaterThan(2);
    expect(types.every((t) => t === 'resume_session')).toBe(true);
    rig.clock.advance(RESUME_ANSWER_MS);
    await rig.engine.settle();
    expect((await rig.session(item.id)).state).toBe('Archived');
    const sent = await notices(item.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.payload).toMatchObject({ cause: RESUME_NO_ANSWER });
    // Nothing keeps running: no recovery retry, no bound left.
    expect(await rig.db.sessionTimer.count({ where: { sessionId: item.id } })).toBe(0);
  });

  it('a resume recovered after losing its computer and then confirmed is Ready', async () => {
    const item = await discovered('88888888-8888-4888-8888-888888888888');
    await resumeSession(rig.deps, { sessionId: item.id });
    await rig.db.node.update({ where: { id: rig.nodeId }, data: { online: false } });
    await rig.engine.settle();
    await rig.db.node.update({ where: { id: rig.nodeId }, data: { online: true } });
    await rig.engine.settle();
    await rig.emit(item.id, 'resume_confirmed', { identity: { pid: 9 } });
    // Back to Resuming by the exact resume, which the agent confirms again for the running CLI.
    expect((await rig.session(item.id)).state).toBe('Resuming');
    expect((await rig.commands(item.id)).at(-1)?.type).toBe('resume_session');
    await rig.emit(item.id, 'resume_confirmed', { identity: { pid: 9 } });
    expect((await rig.session(item.id)).state).toBe('Ready');
    rig.clock.advance(RESUME_ANSWER_MS);
    await rig.engine.settle();
    expect((await rig.session(item.id)).state).toBe('Ready');
    expect(await notices(item.id)).toHaveLength(0);
  });
});
