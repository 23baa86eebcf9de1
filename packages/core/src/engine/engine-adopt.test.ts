import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../domain/index.ts';
import { adoptInPlace, closeSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

// "Adopt in place" through the engine and a real database (the agent played by events): the service
// claims the desk record, the resume attempt goes out as `adopt_in_place` with the pid and start on
// record, the answer moves the handoff table (adopted, or back to desk with the refusal), and a close
// of an adopted session releases it.

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
  await rig.db.node.update({ where: { id: rig.nodeId }, data: { agentCapabilities: ['handoff', 'adopt_in_place'] } });
});
afterEach(async () => {
  await rig.close();
});

const holder = { pid: 4242, startTime: '777', command: 'claude', inTmux: true };

async function atDesk(nativeSessionId: string, inTmux = true) {
  await rig.emit(undefined, 'discovery_diff', {
    added: [{ executor: 'claude', nativeSessionId, folder: '/work/desk', title: 'desk work', lastActivityAt: rig.clock.t, outside: { ...holder, inTmux } }],
    changed: [],
    removed: [],
  });
  const row = await rig.db.session.findFirstOrThrow({ where: { nativeSessionId } });
  expect(row).toMatchObject({ state: 'Archived', handoff: 'desk', deskPid: 4242, deskInTmux: inTmux });
  return row;
}

describe('adopt in place (engine)', () => {
  it('sends adopt_in_place for the pid on record; the answer makes it an adopted Ready session; a close releases it', async () => {
    const row = await atDesk('33333333-3333-4333-8333-333333333333');
    await adoptInPlace(rig.deps, { sessionId: row.id, pid: 4242, source: 'web' });
    expect((await rig.session(row.id)).handoff).toBe('adopting');
    const cmds = await rig.commands(row.id);
    expect(cmds.map((c) => c.type)).toEqual(['adopt_in_place']);
    expect(cmds[0]?.payload).toMatchObject({ executor: 'claude', folder: '/work/desk', nativeSessionId: row.nativeSessionId, pid: 4242, startTime: '777' });
    // Discovery still sees the desk process meanwhile: nothing changes.
    await rig.emit(undefined, 'discovery_diff', {
      added: [],
      changed: [{ executor: 'claude', nativeSessionId: row.nativeSessionId!, folder: '/work/desk', lastActivityAt: rig.clock.t, outside: holder }],
      removed: [],
    });
    expect((await rig.session(row.id)).handoff).toBe('adopting');
    await rig.emit(row.id, 'resume_confirmed', { identity: { tmuxSocket: '/tmp/tmux-0/default', pid: 4242, host: { tmuxSession: 'work' } } });
    const ready = await rig.session(row.id);
    expect(ready).toMatchObject({ state: 'Ready', handoff: 'adopted' });
    await closeSession(rig.deps, { sessionId: row.id });
    await rig.emit(row.id, 'session_closed', { evidence: { verified: true, released: true, cliLeftRunning: 4242, paneDead: false } });
    const closed = await rig.session(row.id);
    expect(closed).toMatchObject({ state: 'Archived', handoff: 'none' });
  });

  it('a refusal from the agent puts the desk record back and leaves the archive record closed', async () => {
    const row = await atDesk('44444444-4444-4444-8444-444444444444');
    await adoptInPlace(rig.deps, { sessionId: row.id, pid: 4242, source: 'web' });
    await rig.emit(row.id, 'resume_failed', { reason: 'not adopted: its tmux pane %3 is gone', code: 'pane_gone' });
    expect(await rig.session(row.id)).toMatchObject({ state: 'Archived', handoff: 'desk', deskPid: 4242 });
  });

  it('is refused by the service for another pid, outside tmux, or an agent without the command', async () => {
    const row = await atDesk('55555555-5555-4555-8555-555555555555');
    const other = await adoptInPlace(rig.deps, { sessionId: row.id, pid: 1, source: 'web' }).catch((e: unknown) => e);
    expect(isAppError(other) && other.userMessage).toBe('sessions.desk_changed');
    const plain = await atDesk('66666666-6666-4666-8666-666666666666', false);
    const notTmux = await adoptInPlace(rig.deps, { sessionId: plain.id, pid: 4242, source: 'web' }).catch((e: unknown) => e);
    expect(isAppError(notTmux) && notTmux.userMessage).toBe('sessions.adopt_not_in_tmux');
    await rig.db.node.update({ where: { id: rig.nodeId }, data: { agentCapabilities: ['handoff'] } });
    const old = await adoptInPlace(rig.deps, { sessionId: row.id, pid: 4242, source: 'web' }).catch((e: unknown) => e);
    expect(isAppError(old) && old.userMessage).toBe('sessions.adopt_unsupported');
    expect(await rig.commands(row.id)).toEqual([]);
    expect((await rig.session(row.id)).handoff).toBe('desk');
  });
});
