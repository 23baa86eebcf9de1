import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { terminateListeners } from '../../../testkit/src/postgres.ts';
import { storeAgentEvent } from '../db/repos/agent-events.ts';
import { acceptMessage, createSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

async function readySession(folder: string) {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder, chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
  return s;
}

const delivers = async (sessionId: string) => (await rig.commands(sessionId)).filter((c) => c.type === 'deliver').length;

describe('engine LISTEN connection', () => {
  // The rig's safety, timer and node polls run once a minute and nothing below calls settle():
  // only the engine's own LISTEN connection can explain the work being done.
  it('comes back after its backend is terminated: work notified meanwhile and afterwards is done', async () => {
    const a = await readySession('/a');
    const b = await readySession('/b');

    expect(await terminateListeners(rig.tdb.url, 'bria_session_wake')).toBe(1);
    // Notified while the connection may still be down: the catch-up after the reconnect finds it.
    await acceptMessage(rig.deps, { sessionId: a.id, text: 'while away', source: 'web' });
    await expect.poll(() => delivers(a.id), { timeout: 15_000 }).toBe(1);

    // Notified after the reconnect: a message wake-up and an agent event.
    const m = await acceptMessage(rig.deps, { sessionId: b.id, text: 'after', source: 'web' });
    await expect.poll(() => delivers(b.id), { timeout: 15_000 }).toBe(1);
    const seq = Number((await rig.db.node.findUniqueOrThrow({ where: { id: rig.nodeId } })).lastEventSeq) + 1;
    await storeAgentEvent(rig.db, rig.nodeId, {
      type: 'event',
      seq,
      at: rig.clock.t,
      event: 'turn_accepted',
      sessionId: b.id,
      generation: 1,
      payload: { messageId: m.message.id, nativeRecordId: 'r1' },
    });
    await expect.poll(async () => (await rig.session(b.id)).state, { timeout: 15_000 }).toBe('Running');
  });
});
