import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, createSession, stopSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

const fromChat = (id: number) => ({ source: 'telegram' as const, sourceKey: `tg:${rig.chatId}:${id}` });
const outcomeRows = async (sessionId: string) => (await listOutbox(rig.db, { sessionId })).filter((o) => o.payload.kind === 'message_outcome');

async function workingSession() {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '7' } });
  const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'job', ...fromChat(77) });
  await rig.engine.settle();
  await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: 'r1' });
  return { s, a };
}

describe('a message whose turn ends without a final gets one notice in the chat it came from', () => {
  it('CLI crash mid-answer: after the exact resume the message the dead CLI held is unknown, and its chat is told once, as a reply to it', async () => {
    const { s, a } = await workingSession();
    await rig.emit(s.id, 'process_exited', { pids: [100], exitStatus: 137, paneDead: true, verified: true });
    expect(await outcomeRows(s.id)).toHaveLength(0);
    await rig.emit(s.id, 'resume_confirmed', { identity: { tmuxPane: '%2', pid: 200 } });
    await rig.emit(s.id, 'evidence_unknown', { messageId: a.message.id, processAlive: false });
    expect((await rig.messages(s.id))[0]?.status).toBe('unknown');
    // The same report again (a replayed event, a later re-attach) writes nothing more.
    await rig.emit(s.id, 'evidence_unknown', { messageId: a.message.id, processAlive: false });
    const rows = await outcomeRows(s.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.chatId).toBe(rig.chatId);
    expect(rows[0]?.payload).toMatchObject({ kind: 'message_outcome', messageId: a.message.id, status: 'unknown', reason: 'crash', replyTo: 77 });
  });

  it('Stop: the main request and its follow-up each get "stopped" as a reply to themselves; a dashboard message gets no Telegram notice', async () => {
    const { s, a } = await workingSession();
    const b = await acceptMessage(rig.deps, { sessionId: s.id, text: 'and also', ...fromChat(78) });
    const w = await acceptMessage(rig.deps, { sessionId: s.id, text: 'from the web', source: 'web', sourceKey: 'web:k1' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: b.message.id, nativeRecordId: 'r2' });
    await rig.emit(s.id, 'turn_accepted', { messageId: w.message.id, nativeRecordId: 'r3' });
    await stopSession(rig.deps, { sessionId: s.id });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_interrupted', { nativeTurnId: 'r1' });
    // Each outcome follows the CLI's own evidence: the follow-ups were separate turns, still running.
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['terminal_failed', 'accepted', 'accepted']);
    await rig.emit(s.id, 'turn_interrupted', { nativeTurnId: 'r2' });
    await rig.emit(s.id, 'turn_interrupted', { nativeTurnId: 'r3' });
    const msgs = await rig.messages(s.id);
    expect(msgs.map((m) => m.status)).toEqual(['terminal_failed', 'terminal_failed', 'terminal_failed']);
    const rows = await outcomeRows(s.id);
    expect(rows.map((r) => r.payload).sort((x, y) => (x as { replyTo: number }).replyTo - (y as { replyTo: number }).replyTo)).toEqual([
      expect.objectContaining({ messageId: a.message.id, reason: 'stopped', replyTo: 77 }),
      expect.objectContaining({ messageId: b.message.id, reason: 'stopped', replyTo: 78 }),
    ]);
  });

  it('a turn that ends with its final gets no notice; an API error without one does', async () => {
    const { s, a } = await workingSession();
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'r1', text: 'done' });
    await rig.emit(s.id, 'turn_completed', { nativeTurnId: 'r1' });
    expect((await rig.messages(s.id))[0]?.id).toBe(a.message.id);
    expect(await outcomeRows(s.id)).toHaveLength(0);
    const c = await acceptMessage(rig.deps, { sessionId: s.id, text: 'again', ...fromChat(80) });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: c.message.id, nativeRecordId: 'r4' });
    await rig.emit(s.id, 'turn_api_error', { nativeTurnId: 'r4', error: 'overloaded' });
    expect((await outcomeRows(s.id)).map((r) => r.payload)).toEqual([expect.objectContaining({ messageId: c.message.id, reason: 'api_error', replyTo: 80 })]);
  });
});
