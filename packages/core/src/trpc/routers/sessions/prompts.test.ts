import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOutbox } from '../../../db/repos/outbox.ts';
import { acceptMessage, answerPrompt, createSession, stopSession } from '../../../services/index.ts';
import { AppError } from '../../../domain/index.ts';
import { engineRig, type Rig } from '../../../engine/testing.ts';
import { createCaller } from '../../app-router.ts';
import { createContextInner } from '../../context.ts';
import { MappedError } from '../../errors.ts';
import { callerFor, signedInCaller } from '../../test-support.ts';

// The prompts come the way the hub stores them: agent events handled by the real engine.
let rig: Rig;
beforeAll(async () => {
  rig = await engineRig();
});
afterAll(async () => {
  await rig?.close();
});

async function refusal(p: Promise<unknown>): Promise<{ code: string; appCode: string | null }> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof TRPCError)) throw new Error(`expected a TRPCError, got ${String(e)}`);
  return { code: e.code, appCode: e instanceof MappedError ? e.appCode : null };
}

/** A Claude session that runs a turn (Running), as the agent reports it. */
async function runningSession() {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/p', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100 } });
  const m = await acceptMessage(rig.deps, { sessionId: s.id, text: 'run the tests', source: 'web' });
  await rig.engine.settle();
  await rig.emit(s.id, 'turn_accepted', { messageId: m.message.id, nativeRecordId: `rec-${s.id}` });
  expect((await rig.session(s.id)).state).toBe('Running');
  return s;
}

function ask(
  sessionId: string,
  o: { kind?: 'tool' | 'question'; toolName?: string; toolInput?: Record<string, unknown>; canAlwaysAllow?: boolean; at?: number } = {},
) {
  const requestId = randomUUID();
  const at = o.at ?? rig.clock.t;
  return rig
    .emit(sessionId, 'permission_request', {
      requestId,
      executor: 'claude',
      kind: o.kind ?? 'tool',
      toolName: o.toolName ?? 'Bash',
      toolInput: o.toolInput ?? { command: 'npm test', description: 'Run the tests' },
      canAlwaysAllow: o.canAlwaysAllow ?? true,
      receivedAt: at,
      expiresAt: at + 30 * 60_000,
    })
    .then(() => requestId);
}

const QUESTION = {
  questions: [
    {
      question: 'Which color?',
      header: 'Color',
      multiSelect: false,
      options: [
        { label: 'Red', description: 'warm' },
        { label: 'Blue', description: 'cool' },
      ],
    },
  ],
};

describe('sessions.prompts and sessions.answerPrompt', () => {
  it('refuse without a session, and answers without the CSRF token', async () => {
    const anon = createCaller(createContextInner({ db: rig.db }));
    expect(await refusal(anon.sessions.prompts({ sessionId: randomUUID() }))).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(await refusal(anon.sessions.answerPrompt({ promptId: randomUUID(), decision: 'allow' }))).toMatchObject({ code: 'UNAUTHORIZED' });
    const s = await runningSession();
    const id = await ask(s.id);
    const { web } = await signedInCaller(rig.db);
    const { caller } = await callerFor(rig.db, web, { csrf: 'wrong' });
    expect(await refusal(caller.sessions.answerPrompt({ promptId: id, decision: 'allow' }))).toMatchObject({ code: 'FORBIDDEN' });
    expect((await rig.db.permissionPrompt.findUniqueOrThrow({ where: { id } })).state).toBe('pending');
    expect((await caller.sessions.prompts({ sessionId: s.id })).prompts.map((p) => p.id)).toEqual([id]);
  });

  it('lists open prompts newest first; the first answer wins (command + evidence), a second is already answered', async () => {
    const { caller } = await signedInCaller(rig.db);
    const s = await runningSession();
    const tool = await ask(s.id, { at: rig.clock.t - 1000 });
    const question = await ask(s.id, { kind: 'question', toolName: 'AskUserQuestion', toolInput: QUESTION, canAlwaysAllow: false });
    const listed = await caller.sessions.prompts({ sessionId: s.id });
    expect(listed.prompts.map((p) => [p.id, p.state])).toEqual([
      [question, 'pending'],
      [tool, 'pending'],
    ]);
    expect(listed.prompts[1]).toMatchObject({
      kind: 'tool',
      toolName: 'Bash',
      toolInput: { command: 'npm test' },
      canAlwaysAllow: true,
      answer: null,
      answeredFrom: null,
    });
    expect(listed.prompts[0]).toMatchObject({ kind: 'question', toolInput: QUESTION, canAlwaysAllow: false });
    expect((await caller.sessions.listOpen({ nodeId: rig.nodeId })).sessions.find((x) => x.id === s.id)?.promptWait).toBe('answer');

    // Refusals are the service's, mapped once.
    expect(await refusal(caller.sessions.answerPrompt({ promptId: randomUUID(), decision: 'allow' }))).toMatchObject({
      code: 'NOT_FOUND',
      appCode: 'NOT_FOUND',
    });
    expect(await refusal(caller.sessions.answerPrompt({ promptId: question, decision: 'always_allow' }))).toMatchObject({
      code: 'BAD_REQUEST',
      appCode: 'INVALID_INPUT',
    });
    expect(await refusal(caller.sessions.answerPrompt({ promptId: question, decision: 'allow' }))).toMatchObject({
      code: 'BAD_REQUEST',
      appCode: 'INVALID_INPUT',
    });
    expect(await refusal(caller.sessions.answerPrompt({ promptId: tool, decision: 'allow', message: 'why' }))).toMatchObject({
      code: 'BAD_REQUEST',
      appCode: 'INVALID_INPUT',
    });

    const denied = await caller.sessions.answerPrompt({ promptId: tool, decision: 'deny', message: 'not on main' });
    expect(denied).toMatchObject({
      kind: 'answered',
      prompt: { id: tool, state: 'answered', answeredFrom: 'dashboard', answer: { decision: 'deny', message: 'not on main' } },
    });
    const again = await caller.sessions.answerPrompt({ promptId: tool, decision: 'allow' });
    expect(again).toMatchObject({ kind: 'already_answered', prompt: { state: 'answered', answeredFrom: 'dashboard', answer: { decision: 'deny' } } });
    const answered = await caller.sessions.answerPrompt({ promptId: question, decision: 'allow', answers: { 'Which color?': 'Blue' } });
    expect(answered).toMatchObject({ kind: 'answered', prompt: { answer: { decision: 'allow', answers: { 'Which color?': 'Blue' } } } });

    const cmds = (await rig.commands(s.id)).filter((c) => c.type === 'answer_permission');
    expect(cmds.map((c) => c.payload)).toEqual([
      expect.objectContaining({ requestId: tool, decision: 'deny', message: 'not on main', from: 'dashboard' }),
      expect.objectContaining({ requestId: question, decision: 'allow', answers: { 'Which color?': 'Blue' }, from: 'dashboard' }),
    ]);
    const timeline = (await caller.sessions.get({ sessionId: s.id })).evidence.map((e) => e.event);
    expect(timeline.filter((e) => e === 'permission_request')).toHaveLength(2);
    expect(timeline.filter((e) => e === 'permission_answered')).toHaveLength(2);
    // Answered prompts stay open until the agent reports them delivered: the session is not waiting for the user.
    expect((await caller.sessions.listOpen({ nodeId: rig.nodeId })).sessions.find((x) => x.id === s.id)?.promptWait).toBeNull();
  });

  it('a 1.2 MB answer is refused at creation with a clear error, from the dashboard and from the bot, and nothing is queued (issue 30)', async () => {
    const s = await runningSession();
    const { caller } = await signedInCaller(rig.db);
    const question = await ask(s.id, { kind: 'question', toolName: 'AskUserQuestion', toolInput: QUESTION, canAlwaysAllow: false });
    const promptId = (await caller.sessions.prompts({ sessionId: s.id })).prompts.find((p) => p.kind === 'question')!.id;
    const huge = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`q${i}`, 'Ж'.repeat(2000)])); // ~1.2 MB as UTF-8
    expect(await refusal(caller.sessions.answerPrompt({ promptId, decision: 'allow', answers: huge }))).toMatchObject({ code: 'BAD_REQUEST' });
    // The bot calls the service directly: the same bound, with the reason.
    const err = await answerPrompt(rig.deps, { promptId, decision: 'allow', answers: huge, from: 'telegram' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'INVALID_INPUT', reason: 'too_long', message: expect.stringMatching(/answers out of bounds/) });
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`q${i}`, 'a']));
    await expect(answerPrompt(rig.deps, { promptId, decision: 'allow', answers: many, from: 'telegram' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await rig.commands(s.id)).filter((c) => c.type === 'answer_permission')).toEqual([]);
    expect((await caller.sessions.prompts({ sessionId: s.id })).prompts.find((p) => p.id === promptId)?.state).toBe('pending');
    expect(question).toBeTruthy();
  });

  it('Stop ends the open requests (their Telegram buttons go); one that arrives during the stop is not answered but ended (chaos seed 80038)', async () => {
    const { caller } = await signedInCaller(rig.db);
    const s = await runningSession();
    const before = await ask(s.id);
    await stopSession(rig.deps, { sessionId: s.id });
    expect((await rig.session(s.id)).state).toBe('Stopping');
    const row = await rig.db.permissionPrompt.findUniqueOrThrow({ where: { id: before } });
    expect(row.state).toBe('ended');
    expect(row.resolution).toMatchObject({ outcome: 'ended', cause: 'stopped' });
    expect((await rig.session(s.id)).openPrompts).toBe(0);
    expect(
      (await listOutbox(rig.db, { sessionId: s.id }))
        .filter((o) => o.payload.kind === 'prompt' && o.payload.promptId === before)
        .map((o) => (o.payload.kind === 'prompt' ? o.payload.phase : '')),
    ).toEqual(['open', 'ended']);
    expect(await caller.sessions.answerPrompt({ promptId: before, decision: 'allow' })).toMatchObject({ kind: 'out_of_date' });

    // Reported after the Stop (the hub learns it late, e.g. across a restart): Allow is refused, the request ends.
    const during = await ask(s.id);
    expect((await rig.db.permissionPrompt.findUniqueOrThrow({ where: { id: during } })).state).toBe('pending');
    expect(await caller.sessions.answerPrompt({ promptId: during, decision: 'allow' })).toMatchObject({ kind: 'out_of_date', prompt: { state: 'ended' } });
    expect((await rig.commands(s.id)).filter((c) => c.type === 'answer_permission')).toEqual([]);
    // The page reads why each ended (issue 31: the words follow what happened).
    const listed = (await caller.sessions.prompts({ sessionId: s.id })).prompts;
    expect(listed.filter((p) => p.id === before || p.id === during).map((p) => p.endCause)).toEqual(['stopped', 'stopped']);
    const timeline = (await caller.sessions.get({ sessionId: s.id })).evidence
      .filter((e) => e.event === 'permission_ended')
      .map((e) => e.evidence as { requestId?: string; cause?: string } | null);
    expect(timeline).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ requestId: before, cause: 'stopped' }),
        expect.objectContaining({ requestId: during, cause: 'stopped' }),
      ]),
    );
  });

  it('a request that waits at the computer marks the session so; answering it then is out of date; ended ones stay listed', async () => {
    const { caller } = await signedInCaller(rig.db);
    const s = await runningSession();
    const id = await ask(s.id);
    await rig.emit(s.id, 'permission_resolved', { requestId: id, outcome: 'expired', at: rig.clock.t });
    expect((await caller.sessions.prompts({ sessionId: s.id })).prompts).toMatchObject([{ id, state: 'waiting_at_computer' }]);
    expect((await caller.sessions.listOpen({ nodeId: rig.nodeId })).sessions.find((x) => x.id === s.id)?.promptWait).toBe('computer');
    expect(await caller.sessions.answerPrompt({ promptId: id, decision: 'allow' })).toMatchObject({
      kind: 'out_of_date',
      prompt: { state: 'waiting_at_computer' },
    });
    expect(await rig.db.agentCommand.count({ where: { sessionId: s.id, type: 'answer_permission' } })).toBe(0);

    await rig.emit(s.id, 'permission_resolved', { requestId: id, outcome: 'hook_gone', at: rig.clock.t });
    const later = await ask(s.id, { at: rig.clock.t + 1000 });
    const listed = (await caller.sessions.prompts({ sessionId: s.id })).prompts;
    expect(listed.map((p) => [p.id, p.state])).toEqual([
      [later, 'pending'],
      [id, 'answered_at_computer'],
    ]);
  });
});
