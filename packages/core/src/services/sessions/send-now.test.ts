import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineRig, type Rig } from '../../engine/testing.ts';
import { acceptMessage, createSession } from './index.ts';
import { sendMessageNow } from './send-now.ts';

/** "Send now" (issue 33) over the real engine: the running turn is stopped the CLI's way, its outcome is truthful, the text goes next as a new request. */
let rig: Rig;
beforeAll(async () => {
  rig = await engineRig();
});
afterAll(async () => {
  await rig?.close();
});

async function running(folder: string) {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder, chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100 } });
  const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'long job', source: 'web' });
  await rig.engine.settle();
  await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: `r-${s.id}` });
  return { sessionId: s.id, first: a.message.id };
}

describe('send now', () => {
  it('interrupts the running turn, never joins it, and is delivered next as its own request', async () => {
    const { sessionId, first } = await running('/work/now-1');
    const r = await sendMessageNow(rig.deps, { sessionId, text: 'stop that, do this', source: 'web', sourceKey: 'web:now-1-key' });
    expect(r).toMatchObject({ interrupted: true, duplicate: false });
    await rig.engine.settle();
    expect((await rig.session(sessionId)).state).toBe('Stopping');
    // The interrupt went out; the text was not handed to the turn being stopped.
    expect((await rig.commands(sessionId)).map((c) => c.type)).toEqual(['start_session', 'deliver', 'interrupt']);
    expect((await rig.messages(sessionId)).map((m) => m.status)).toEqual(['accepted', 'pending']);
    // The CLI confirms the interrupt: the stopped turn's message gets its truthful outcome, the new one is typed next as a main request.
    await rig.emit(sessionId, 'turn_interrupted', { nativeTurnId: `r-${sessionId}` });
    const msgs = await rig.messages(sessionId);
    expect(msgs.map((m) => [m.id === first ? 'first' : 'now', m.status, m.mainMessageId])).toEqual([
      ['first', 'terminal_failed', null],
      ['now', 'leased', null],
    ]);
    const deliver = (await rig.commands(sessionId)).filter((c) => c.type === 'deliver').at(-1);
    expect(deliver?.payload).toMatchObject({ messageId: r.message.id, text: 'stop that, do this' });
  });

  it('a retried request stops nothing twice; without a running turn it is an ordinary send; a refused text stops nothing', async () => {
    const { sessionId } = await running('/work/now-2');
    await sendMessageNow(rig.deps, { sessionId, text: 'now please', source: 'web', sourceKey: 'web:now-2-key' });
    const again = await sendMessageNow(rig.deps, { sessionId, text: 'now please', source: 'web', sourceKey: 'web:now-2-key' });
    expect(again).toMatchObject({ duplicate: true, interrupted: false });
    await rig.engine.settle();
    expect((await rig.commands(sessionId)).filter((c) => c.type === 'interrupt')).toHaveLength(1);

    const idle = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/now-3', chatId: rig.chatId });
    await rig.emit(idle.id, 'session_ready', { identity: { tmuxPane: '%2', pid: 101 } });
    const plain = await sendMessageNow(rig.deps, { sessionId: idle.id, text: 'hello', source: 'web' });
    expect(plain.interrupted).toBe(false);
    await rig.engine.settle();
    expect((await rig.commands(idle.id)).map((c) => c.type)).toEqual(['start_session', 'deliver']);

    const busy = await running('/work/now-4');
    await expect(sendMessageNow(rig.deps, { sessionId: busy.sessionId, text: 'bad \u0007 bell', source: 'web' })).rejects.toMatchObject({
      reason: 'control_characters',
    });
    expect((await rig.session(busy.sessionId)).state).toBe('Running');
    expect((await rig.commands(busy.sessionId)).filter((c) => c.type === 'interrupt')).toHaveLength(0);
  });
});
