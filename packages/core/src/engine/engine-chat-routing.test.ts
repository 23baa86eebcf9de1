import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOutbox } from '../db/repos/outbox.ts';
import { setActiveSessionId } from '../db/repos/sessions.ts';
import { acceptMessage, createSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
const OTHER = 2002n;
beforeEach(async () => {
  rig = await engineRig();
  await rig.db.telegramChat.create({ data: { chatId: OTHER, userId: 43n } });
});
afterEach(async () => {
  await rig.close();
});

const chatsOf = async (sessionId: string, kind: string) =>
  (await listOutbox(rig.db, { sessionId }))
    .filter((o) => o.payload.kind === kind)
    .map((o) => o.chatId)
    .sort();

describe('session notices go to the chats the session lives in', () => {
  it('a CLI dialog of a session created from one chat is shown in that chat only; a chat that selects it later gets its notices too', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
    await rig.emit(s.id, 'blocked_on_prompt', { text: 'Do you trust the files in this folder?' });
    expect(await chatsOf(s.id, 'blocked_on_prompt')).toEqual([rig.chatId]);
    await setActiveSessionId(rig.db, OTHER, rig.nodeId, s.id);
    await rig.emit(s.id, 'blocked_on_prompt', { text: 'Allow this command?' });
    expect(await chatsOf(s.id, 'blocked_on_prompt')).toEqual([rig.chatId, rig.chatId, OTHER].sort());
  });

  it('a message refused after the lifetime ended is answered in the chat it came from only', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
    await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
    await setActiveSessionId(rig.db, OTHER, rig.nodeId, s.id);
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'job', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: 'r1' });
    rig.clock.advance(12 * 3600_000);
    await rig.engine.settle();
    expect((await rig.session(s.id)).state).toBe('ClosingAfterWork');
    await expect(acceptMessage(rig.deps, { sessionId: s.id, text: 'late', source: 'telegram', sourceKey: `tg:${OTHER}:5` })).rejects.toMatchObject({
      code: 'LIFETIME_EXPIRED',
    });
    expect(await chatsOf(s.id, 'expiry_refusal')).toEqual([OTHER]);
  });

  it('a session no chat has touched (created on the dashboard) is announced in every chat of its computer', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj' });
    await rig.emit(s.id, 'blocked_on_prompt', { text: 'Do you trust the files in this folder?' });
    expect(await chatsOf(s.id, 'blocked_on_prompt')).toEqual([rig.chatId, OTHER].sort());
  });
});
