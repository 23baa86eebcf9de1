import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listEvidence } from '../db/repos/evidence.ts';
import { listOutbox } from '../db/repos/outbox.ts';
import { acceptMessage, closeSession, createSession, stopSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

async function readySession(executor: 'claude' | 'codex' = 'claude') {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor, folder: '/work/proj', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
  return s;
}

describe('session engine', () => {
  it('delivers messages stored while Starting once each, in order, only after session_ready', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'first', source: 'telegram', sourceKey: 'tg:1' });
    await acceptMessage(rig.deps, { sessionId: s.id, text: 'second', source: 'telegram', sourceKey: 'tg:2' });
    const again = await acceptMessage(rig.deps, { sessionId: s.id, text: 'first', source: 'telegram', sourceKey: 'tg:1' });
    expect(again.duplicate).toBe(true);
    expect(again.message.id).toBe(a.message.id);
    await rig.engine.settle();
    expect((await rig.commands(s.id)).map((c) => c.type)).toEqual(['start_session']);
    const start = (await rig.commands(s.id))[0];
    expect(start?.payload.nativeSessionId).toBe((await rig.session(s.id)).nativeSessionId);

    await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100 } });
    expect((await rig.session(s.id)).state).toBe('Ready');
    let cmds = await rig.commands(s.id);
    expect(cmds.map((c) => c.type)).toEqual(['start_session', 'deliver']);
    expect(cmds[1]?.payload.text).toBe('first');
    expect(cmds[1]?.payload.generation).toBe(1);

    // Nothing more is handed over before the first receipt (one acceptance at a time keeps order).
    await rig.engine.settle();
    expect((await rig.commands(s.id)).length).toBe(2);
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: 'rec-1', offset: 10 });
    expect((await rig.session(s.id)).state).toBe('Running');
    cmds = await rig.commands(s.id);
    expect(cmds.map((c) => c.type)).toEqual(['start_session', 'deliver', 'deliver']);
    expect(cmds[2]?.payload).toMatchObject({ text: 'second', mainMessageId: a.message.id });
    await rig.emit(s.id, 'turn_accepted', { messageId: cmds[2]?.payload.messageId, nativeRecordId: 'rec-2', offset: 20 });
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'rec-1', text: 'answer one' });
    await rig.emit(s.id, 'turn_completed', { nativeTurnId: 'rec-1' });
    // The follow-up has its own prompt record: Claude runs it as a turn of its own, and its end is
    // its own event (the first turn's end does not claim it).
    expect((await rig.messages(s.id)).map((m) => [m.seq, m.status])).toEqual([
      [1, 'completed'],
      [2, 'accepted'],
    ]);
    expect((await rig.session(s.id)).state).toBe('Running');
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'rec-2', text: 'answer two' });
    await rig.emit(s.id, 'turn_completed', { nativeTurnId: 'rec-2' });
    expect((await rig.commands(s.id)).length).toBe(3);
    const msgs = await rig.messages(s.id);
    expect(msgs.map((m) => [m.seq, m.status])).toEqual([
      [1, 'completed'],
      [2, 'completed'],
    ]);
    expect(msgs[0]?.finalText).toBe('answer one');
    expect((await rig.session(s.id)).state).toBe('Ready');
    const finals = await listOutbox(rig.db, { sessionId: s.id, kind: 'final' });
    expect(finals).toHaveLength(2);
    const ev = await listEvidence(rig.db, s.id);
    expect(ev.map((e) => `${e.fromState ?? '-'}>${e.toState}:${e.event}`)).toEqual(
      expect.arrayContaining(['->Starting:create', 'Starting>Ready:cli_ready', 'Ready>Running:turn_started', 'Running>Ready:work_drained']),
    );
  });

  it('a follow-up joins the running turn and shares its outcome', async () => {
    const s = await readySession('codex');
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'main', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeTurnId: 'turn-1' });
    const b = await acceptMessage(rig.deps, { sessionId: s.id, text: 'also this', source: 'web' });
    await rig.engine.settle();
    const deliver = (await rig.commands(s.id)).filter((c) => c.type === 'deliver');
    expect(deliver.map((c) => c.payload.messageId)).toEqual([a.message.id, b.message.id]);
    expect(deliver[1]?.payload.mainMessageId).toBe(a.message.id);
    await rig.emit(s.id, 'turn_accepted', { messageId: b.message.id, nativeTurnId: 'turn-1' });
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'turn-1', text: 'both done' });
    await rig.emit(s.id, 'turn_completed', { nativeTurnId: 'turn-1' });
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['completed', 'completed']);
    expect((await rig.session(s.id)).state).toBe('Ready');
    expect(await listOutbox(rig.db, { sessionId: s.id, kind: 'final' })).toHaveLength(1);
  });

  it('a turn end reported again after a re-attach does not end a follow-up that became a turn of its own (chaos seed 30006)', async () => {
    const s = await readySession('codex');
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'main', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeTurnId: 'turn-1' });
    const b = await acceptMessage(rig.deps, { sessionId: s.id, text: 'right after', source: 'web' });
    await rig.engine.settle();
    // The first turn ends while the follow-up is still without its receipt; Codex runs it as turn 2.
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'turn-1', text: 'one' });
    await rig.emit(s.id, 'turn_completed', { messageId: a.message.id, nativeTurnId: 'turn-1' });
    await rig.emit(s.id, 'turn_accepted', { messageId: b.message.id, nativeTurnId: 'turn-2' });
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['completed', 'accepted']);
    // The agent re-attaches and reports its recent turn ends again: turn 1's end changes nothing.
    await rig.emit(s.id, 'turn_completed', { messageId: a.message.id, nativeTurnId: 'turn-1' });
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['completed', 'accepted']);
    expect((await rig.session(s.id)).state).toBe('Running');
    expect((await listEvidence(rig.db, s.id)).map((e) => e.event)).toContain('turn_end_replayed');
    // Turn 2's own end completes the follow-up.
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'turn-2', text: 'two' });
    await rig.emit(s.id, 'turn_completed', { messageId: b.message.id, nativeTurnId: 'turn-2' });
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['completed', 'completed']);
    expect((await rig.session(s.id)).state).toBe('Ready');
  });

  it('stop interrupts current work, gives main and follow-ups one outcome, then the queue continues', async () => {
    const s = await readySession();
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'long job', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: 'r1' });
    const stopped = await stopSession(rig.deps, { sessionId: s.id });
    expect(stopped.state).toBe('Stopping');
    const later = await acceptMessage(rig.deps, { sessionId: s.id, text: 'next', source: 'web' });
    await rig.engine.settle();
    expect((await rig.commands(s.id)).map((c) => c.type)).toEqual(['start_session', 'deliver', 'interrupt']);
    // Unconfirmed for 15 s: one notice, the interrupt is sent again, nothing gets a false outcome.
    rig.clock.advance(15_001);
    await rig.engine.settle();
    expect((await rig.commands(s.id)).map((c) => c.type)).toEqual(['start_session', 'deliver', 'interrupt', 'interrupt']);
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['accepted', 'pending']);
    expect((await listOutbox(rig.db, { sessionId: s.id })).filter((o) => o.payload.kind === 'progress' && o.payload.phase === 'unconfirmed')).toHaveLength(1);
    await rig.emit(s.id, 'turn_interrupted', { nativeTurnId: 'r1' });
    const after = await rig.session(s.id);
    expect(after.state).toBe('Ready');
    const msgs = await rig.messages(s.id);
    expect(msgs.map((m) => m.status)).toEqual(['terminal_failed', 'leased']);
    expect(msgs[1]?.id).toBe(later.message.id);
    expect(await rig.db.sessionTimer.count({ where: { sessionId: s.id, name: 'stop_drain' } })).toBe(0);
  });

  it('a stop never confirmed ends after a second drain: its message unknown, the queue continues (chaos seed 90012)', async () => {
    const s = await readySession();
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'long job', source: 'telegram', sourceKey: `tg:${rig.chatId}:77` });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: 'r1' });
    await stopSession(rig.deps, { sessionId: s.id });
    const later = await acceptMessage(rig.deps, { sessionId: s.id, text: 'next', source: 'web' });
    await rig.engine.settle();
    rig.clock.advance(15_001);
    await rig.engine.settle();
    expect((await rig.commands(s.id)).map((c) => c.type)).toEqual(['start_session', 'deliver', 'interrupt', 'interrupt']);
    // The second drain: not a moment early.
    rig.clock.advance(14_998);
    await rig.engine.settle();
    expect((await rig.session(s.id)).state).toBe('Stopping');
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['accepted', 'pending']);
    rig.clock.advance(2);
    await rig.engine.settle();
    expect((await rig.session(s.id)).state).toBe('Ready');
    const msgs = await rig.messages(s.id);
    expect(msgs.map((m) => [m.status, m.outcomeDetail])).toEqual([
      ['unknown', 'stop_unconfirmed'],
      ['leased', null],
    ]);
    expect(msgs[1]?.id).toBe(later.message.id);
    expect((await rig.commands(s.id)).map((c) => c.type)).toEqual(['start_session', 'deliver', 'interrupt', 'interrupt', 'deliver']);
    expect(await rig.db.sessionTimer.count({ where: { sessionId: s.id, name: 'stop_drain' } })).toBe(0);
    const ev = await listEvidence(rig.db, s.id);
    expect(ev.map((e) => `${e.fromState ?? '-'}>${e.toState}:${e.event}`)).toEqual(
      expect.arrayContaining(['Stopping>Stopping:stop_drain_expired', 'Stopping>Ready:stop_unresolved']),
    );
    // The chat is told the stop was never confirmed (one notice for that message), never that it completed.
    const out = await listOutbox(rig.db, { sessionId: s.id });
    expect(out.filter((o) => o.kind === 'final')).toHaveLength(0);
    expect(out.flatMap((o) => (o.payload.kind === 'message_outcome' ? [[o.payload.messageId, o.payload.reason]] : []))).toEqual([
      [a.message.id, 'stop_unconfirmed'],
    ]);
  });

  it('close is refused while working and archives only after verified exit and archive commit', async () => {
    const s = await readySession();
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'job', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: 'r1' });
    await expect(closeSession(rig.deps, { sessionId: s.id })).rejects.toMatchObject({ code: 'ILLEGAL_TRANSITION' });
    await rig.emit(s.id, 'turn_final', { nativeTurnId: 'r1', text: 'ok' });
    await rig.emit(s.id, 'turn_completed', { nativeTurnId: 'r1' });
    const closing = await closeSession(rig.deps, { sessionId: s.id });
    expect(closing.state).toBe('Closing');
    // Observer EOF / an unverified exit proves nothing.
    await rig.emit(s.id, 'process_exited', { pids: [100], exitStatus: null, paneDead: false, verified: false });
    expect((await rig.session(s.id)).state).toBe('Closing');
    await rig.emit(s.id, 'session_closed', {
      evidence: { verified: true, pid: 100, paneDead: true },
      archivedJournal: { path: '/a/j.jsonl', sizeBytes: 10, sha256: 'ab' },
    });
    const row = await rig.session(s.id);
    expect(row.state).toBe('Archived');
    expect(row.archivedAt).not.toBeNull();
    expect(await rig.db.archiveCopy.count({ where: { sessionId: s.id } })).toBe(1);
    const ev = await listEvidence(rig.db, s.id);
    const exit = ev.find((e) => e.event === 'process_exited_verified');
    expect(exit?.evidence).toMatchObject({ verified: true, pid: 100, paneDead: true });
    expect(ev.at(-1)?.event).toBe('archive_committed');
  });

  it('refuses events of a stale observer generation', async () => {
    const s = await readySession();
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'job', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', { messageId: a.message.id, nativeRecordId: 'r1' }, 0);
    await rig.emit(s.id, 'observer_lost', {}, 7);
    const row = await rig.session(s.id);
    expect(row.state).toBe('Ready');
    expect((await rig.messages(s.id))[0]?.status).toBe('leased');
    const refused = (await listEvidence(rig.db, s.id)).filter((e) => e.event.startsWith('refused:'));
    expect(refused.map((e) => e.event)).toEqual(['refused:turn_accepted', 'refused:observer_lost']);
    expect(await rig.db.agentEvent.count({ where: { processedAt: null } })).toBe(0);
  });
});

describe('dispatcher wake-up', () => {
  it('a message stored for a Ready session becomes a deliver command through NOTIFY alone (no settle, no poll)', async () => {
    const s = await readySession();
    const t0 = Date.now();
    const m = await acceptMessage(rig.deps, { sessionId: s.id, text: 'fast', source: 'web' });
    let deliver: { payload: Record<string, unknown> } | undefined;
    while (!deliver && Date.now() - t0 < 5000) {
      deliver = (await rig.commands(s.id)).find((c) => c.type === 'deliver');
      if (!deliver) await new Promise((r) => setTimeout(r, 5));
    }
    expect(deliver?.payload.messageId).toBe(m.message.id);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
