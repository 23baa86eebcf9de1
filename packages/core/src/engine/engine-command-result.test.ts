import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acceptMessage, answerPrompt, closeSession, createSession } from '../services/index.ts';
import { engineRig, type Rig } from './testing.ts';

let rig: Rig;
beforeEach(async () => {
  rig = await engineRig();
});
afterEach(async () => {
  await rig.close();
});

async function readyWithTwo(executor: 'claude' | 'codex' = 'claude') {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor, folder: '/work/proj', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
  const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'first', source: 'web' });
  await acceptMessage(rig.deps, { sessionId: s.id, text: 'second', source: 'web' });
  await rig.engine.settle();
  const deliver = (await rig.commands(s.id)).find((c) => c.type === 'deliver')!;
  expect(deliver.payload.messageId).toBe(a.message.id);
  return { s, a, deliver };
}

const result = (sessionId: string, commandId: string, payload: Record<string, unknown>) => rig.emit(sessionId, 'command_result', payload, undefined, commandId);

describe('command results', () => {
  it('a start cancelled on its dialog and cut short by an agent restart: archived with "no journal" evidence, and the answered dialog ends (chaos seed 40022)', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/untrusted', chatId: rig.chatId });
    await rig.engine.settle();
    const start = (await rig.commands(s.id)).find((c) => c.type === 'start_session')!;
    await rig.emit(s.id, 'blocked_on_prompt', { text: 'Is this a project you trust?', dialog: 'folder_trust' }, 1);
    const prompt = await rig.db.permissionPrompt.findFirstOrThrow({ where: { sessionId: s.id, kind: 'dialog' } });
    expect((await answerPrompt(rig.deps, { promptId: prompt.id, decision: 'deny', from: 'dashboard' })).kind).toBe('answered');
    expect((await rig.session(s.id)).state).toBe('Closing');
    // The agent restarted before the start was confirmed: it ended that CLI, which never wrote a journal.
    await result(s.id, start.id, { command: 'start_session', ok: false, interrupted: true, exited: true, journal: 'none' });
    expect((await rig.session(s.id)).state).toBe('Archived');
    const exit = (await rig.db.sessionEvidence.findMany({ where: { sessionId: s.id, event: 'process_exited_verified' } }))[0];
    expect(exit?.evidence).toMatchObject({ reason: 'start_session_interrupted', journal: 'none' });
    expect((await rig.db.permissionPrompt.findUniqueOrThrow({ where: { id: prompt.id } })).state).toBe('ended');
    expect((await rig.session(s.id)).openPrompts).toBe(0);
  });

  it('a deliver answered unknown (no receipt; or cut short by an agent crash) becomes unknown and the queue moves on; a repeated answer changes nothing', async () => {
    const { s, a, deliver } = await readyWithTwo();
    await result(s.id, deliver.id, { command: 'deliver', ok: false, delivery: 'unknown', messageId: a.message.id, interrupted: true });
    let msgs = await rig.messages(s.id);
    expect(msgs.map((m) => m.status)).toEqual(['unknown', 'leased']);
    expect(msgs[0]!.outcomeDetail).toBe('delivery_interrupted');
    const delivers = (await rig.commands(s.id)).filter((c) => c.type === 'deliver');
    expect(delivers.map((c) => c.payload.text)).toEqual(['first', 'second']);
    await result(s.id, deliver.id, { command: 'deliver', ok: false, delivery: 'unknown', messageId: a.message.id, interrupted: true });
    msgs = await rig.messages(s.id);
    expect(msgs.map((m) => m.status)).toEqual(['unknown', 'leased']);
    expect((await rig.commands(s.id)).filter((c) => c.type === 'deliver')).toHaveLength(2);
  });

  it('an answer names its exact command: one for another command id leaves the lease alone', async () => {
    const { s, a } = await readyWithTwo();
    await result(s.id, '00000000-0000-4000-8000-000000000000', {
      command: 'deliver',
      ok: false,
      delivery: 'unknown',
      messageId: a.message.id,
      interrupted: true,
    });
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['leased', 'pending']);
  });

  it('an interrupted deliver whose receipt the agent had bound is accepted from it if its turn_accepted never landed', async () => {
    const { s, a, deliver } = await readyWithTwo();
    await result(s.id, deliver.id, { command: 'deliver', ok: true, delivery: 'accepted', messageId: a.message.id, nativeRef: 'rec-1', interrupted: true });
    const m = (await rig.messages(s.id))[0]!;
    expect(m.status).toBe('accepted');
    expect(m.nativeRecordId).toBe('rec-1');
    expect((await rig.session(s.id)).state).toBe('Running');
  });

  it('an interrupted close is asked for again', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
    await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
    await closeSession(rig.deps, { sessionId: s.id });
    await rig.engine.settle();
    expect((await rig.session(s.id)).state).toBe('Closing');
    const close = (await rig.commands(s.id)).filter((c) => c.type === 'close_session');
    expect(close).toHaveLength(1);
    await result(s.id, close[0]!.id, { command: 'close_session', ok: false, interrupted: true, error: 'interrupted by an agent restart' });
    expect((await rig.commands(s.id)).filter((c) => c.type === 'close_session')).toHaveLength(2);
    expect((await rig.session(s.id)).state).toBe('Closing');
  });

  it('an interrupted start whose CLI the agent ended is started again (never resumed), under a new generation', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
    await rig.engine.settle();
    const start = (await rig.commands(s.id))[0]!;
    expect(start.type).toBe('start_session');
    await result(s.id, start.id, { command: 'start_session', ok: false, interrupted: true, exited: true });
    const row = await rig.session(s.id);
    expect(row.state).toBe('AwaitingRecovery');
    const cmds = await rig.commands(s.id);
    expect(cmds.map((c) => c.type)).toEqual(['start_session', 'start_session']);
    expect(cmds[1]!.payload.generation).toBe(row.observerGeneration);
    expect(cmds[1]!.payload.nativeSessionId).toBe(row.nativeSessionId);
  });
});

describe('a start again the agent refuses', () => {
  // The queue says no conversation began, the agent's record says something may
  // have been typed. Asking for a start again for ever would leave the session waiting, so the
  // agent's refusal turns recovery to re-attach, then the exact resume.
  it('resume_failed with code conversation_may_exist: the next attempts re-attach and resume exactly, never start again', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/proj', chatId: rig.chatId });
    await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
    await rig.emit(s.id, 'process_exited', { pids: [100], exitStatus: 137, paneDead: true, verified: true });
    await acceptMessage(rig.deps, { sessionId: s.id, text: 'waiting', source: 'web' });
    await rig.engine.settle();
    const types = async () => (await rig.commands(s.id)).map((c) => c.type);
    expect((await types()).filter((t) => t === 'start_session')).toHaveLength(2);
    expect((await rig.session(s.id)).state).toBe('AwaitingRecovery');
    expect((await rig.messages(s.id)).map((m) => m.status)).toEqual(['pending']);

    await rig.emit(s.id, 'resume_failed', { reason: 'not started again: a message was typed into its CLI (delivery mark)', code: 'conversation_may_exist' });
    const row = await rig.db.session.findUniqueOrThrow({ where: { id: s.id } });
    expect(row.conversationMayExist).toBe(true);
    const ev = (await rig.db.sessionEvidence.findMany({ where: { sessionId: s.id, event: 'resume_failed' } })).at(-1);
    expect(ev?.evidence).toMatchObject({ code: 'conversation_may_exist' });

    const before = (await types()).length;
    rig.clock.advance(1_500);
    await rig.engine.settle();
    expect((await types()).slice(before)).toEqual(['attach_session']);
    // The agent finds the dead CLI: a verified exit, now answered with the exact resume.
    await rig.emit(s.id, 'process_exited', { pids: [100], exitStatus: 137, paneDead: true, verified: true });
    await rig.engine.settle();
    const after = (await types()).slice(before);
    expect(after).toEqual(['attach_session', 'resume_session']);
    expect((await rig.commands(s.id)).at(-1)?.payload.nativeSessionId).toBe(row.nativeSessionId);
  });
});

describe('a Codex CLI started again, first seen through a re-attach', () => {
  // Starts queued while the node was away all run on its return; the first starts a new Codex CLI,
  // whose session_ready (an older generation) is refused as stale, and the next ones and the
  // re-attach bind to it. Its new id must replace the dead CLI's, which named nothing.
  it('reattached with a new native id while no conversation began: the id is replaced, on record', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'codex', folder: '/work/proj', chatId: rig.chatId });
    await rig.emit(s.id, 'session_ready', { identity: { nativeSessionId: 'thread-dead', tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
    await rig.emit(s.id, 'observer_lost', { reason: 'node away' });
    rig.clock.advance(1_500);
    await rig.engine.settle();
    expect((await rig.session(s.id)).observerGeneration).toBeGreaterThan(1);
    // The started CLI's own ready, sent under the generation of its (older) start: refused as stale.
    await rig.emit(s.id, 'session_ready', { identity: { nativeSessionId: 'thread-new', tmuxPane: '%2', pid: 200, pidStartTime: '2' } }, 1);
    expect((await rig.session(s.id)).nativeSessionId).toBe('thread-dead');
    await rig.emit(s.id, 'reattached', { identity: { nativeSessionId: 'thread-new', tmuxPane: '%2', pid: 200, pidStartTime: '2' } });
    const row = await rig.session(s.id);
    expect(row.state).toBe('Ready');
    expect(row.nativeSessionId).toBe('thread-new');
    const ev = await rig.db.sessionEvidence.findFirst({ where: { sessionId: s.id, event: 'native_id_replaced' } });
    expect(ev?.evidence).toMatchObject({ previous: 'thread-dead', now: 'thread-new', reason: 'no_conversation_began' });
  });

  it('once a message may have reached the CLI, a re-attach never replaces the id', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'codex', folder: '/work/proj', chatId: rig.chatId });
    await rig.emit(s.id, 'session_ready', { identity: { nativeSessionId: 'thread-1', tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
    await acceptMessage(rig.deps, { sessionId: s.id, text: 'first', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'observer_lost', { reason: 'node away' });
    await rig.emit(s.id, 'reattached', { identity: { nativeSessionId: 'thread-other', tmuxPane: '%2', pid: 200, pidStartTime: '2' } });
    expect((await rig.session(s.id)).nativeSessionId).toBe('thread-1');
  });
});

describe('identity learned with a receipt', () => {
  it('turn_accepted carrying the identity (a Codex rollout path) stores it; one naming another native session is ignored', async () => {
    const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'codex', folder: '/work/proj', chatId: rig.chatId });
    await rig.emit(s.id, 'session_ready', { identity: { nativeSessionId: 'thread-1', tmuxPane: '%1', pid: 100, pidStartTime: '1' } });
    const a = await acceptMessage(rig.deps, { sessionId: s.id, text: 'first', source: 'web' });
    await rig.engine.settle();
    await rig.emit(s.id, 'turn_accepted', {
      messageId: a.message.id,
      nativeTurnId: 'turn-1',
      identity: { nativeSessionId: 'thread-1', tmuxPane: '%1', pid: 100, pidStartTime: '1', journalPath: '/home/u/.codex/sessions/rollout-thread-1.jsonl' },
    });
    let row = await rig.session(s.id);
    expect((row.identity as { journalPath?: string }).journalPath).toBe('/home/u/.codex/sessions/rollout-thread-1.jsonl');
    expect((await rig.messages(s.id))[0]!.status).toBe('accepted');
    await rig.emit(s.id, 'turn_accepted', {
      messageId: a.message.id,
      nativeTurnId: 'turn-1',
      identity: { nativeSessionId: 'other', pid: 100, journalPath: '/elsewhere.jsonl' },
    });
    // A receipt replayed after a resume names the dead process: it never replaces the live identity.
    await rig.emit(s.id, 'turn_accepted', {
      messageId: a.message.id,
      nativeTurnId: 'turn-1',
      identity: { nativeSessionId: 'thread-1', pid: 99, journalPath: '/old.jsonl' },
    });
    row = await rig.session(s.id);
    expect((row.identity as { journalPath?: string }).journalPath).toBe('/home/u/.codex/sessions/rollout-thread-1.jsonl');
  });
});
