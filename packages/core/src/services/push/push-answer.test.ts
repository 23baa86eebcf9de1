import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserKeys } from '../../../../testkit/src/push-endpoint.ts';
import { engineRig, type Rig } from '../../engine/testing.ts';
import { PUSH_ANSWER_TTL_MS } from '../../db/repos/push-answer.ts';
import { acceptMessage, createSession } from '../sessions/index.ts';
import { signedInCaller } from '../../trpc/test-support.ts';
import { answerFromNotification } from './push-answer.ts';

/**
 * Allow / Deny from a permission request's notification (issue 32), over the rows the real engine
 * writes: the push payload carries one token per device; a press answers through `answerPrompt`
 * exactly once; a replay, a second device, an expired or unknown token change nothing.
 */
let rig: Rig;
let devices: string[];
beforeAll(async () => {
  rig = await engineRig();
  const { caller } = await signedInCaller(rig.db);
  devices = [];
  for (const name of ['phone', 'laptop']) {
    const d = await caller.push.subscribe({ subscription: { endpoint: `https://push.example.com/${name}-${randomUUID()}`, keys: browserKeys().keys }, name });
    devices.push(d.id);
  }
});
afterAll(async () => {
  await rig?.close();
});

async function ask(kind: 'tool' | 'question'): Promise<{ sessionId: string; requestId: string }> {
  const s = await createSession(rig.deps, { nodeId: rig.nodeId, executor: 'claude', folder: '/work/answer', chatId: rig.chatId });
  await rig.emit(s.id, 'session_ready', { identity: { tmuxPane: '%1', pid: 100 } });
  const m = await acceptMessage(rig.deps, { sessionId: s.id, text: 'go', source: 'web' });
  await rig.engine.settle();
  await rig.emit(s.id, 'turn_accepted', { messageId: m.message.id, nativeRecordId: `rec-${s.id}`, nativeTurnId: `turn-${s.id}` });
  const requestId = randomUUID();
  await rig.emit(s.id, 'permission_request', {
    requestId,
    executor: 'claude',
    kind,
    toolName: kind === 'tool' ? 'Bash' : 'AskUserQuestion',
    toolInput: kind === 'tool' ? { command: 'ls' } : { questions: [{ question: 'Which?', options: [{ label: 'a' }, { label: 'b' }] }] },
    canAlwaysAllow: false,
    receivedAt: rig.clock.t,
    expiresAt: rig.clock.t + 30 * 60_000,
  });
  return { sessionId: s.id, requestId };
}

/** The token each device's show push carries, by device. */
async function tokens(requestId: string): Promise<Map<string, string | undefined>> {
  const rows = await rig.db.pushOutbox.findMany({ where: { promptId: requestId, action: 'show' }, select: { subscriptionId: true, payload: true } });
  return new Map(rows.map((r) => [r.subscriptionId, (r.payload as { answer?: { token: string } }).answer?.token]));
}

const answerCommands = (requestId: string) =>
  rig.db.agentCommand.findMany({ where: { type: 'answer_permission', payload: { path: ['requestId'], equals: requestId } }, select: { payload: true } });

describe('answer from the notification', () => {
  it('each device gets its own token; Allow answers once, from "notification"; a replay and the other device are "already answered"', async () => {
    const { sessionId, requestId } = await ask('tool');
    const byDevice = await tokens(requestId);
    const [phone, laptop] = devices.map((d) => byDevice.get(d));
    expect(phone).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(laptop).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(phone).not.toBe(laptop);
    // Only hashes are stored.
    const stored = await rig.db.pushAnswerToken.findMany({ where: { promptId: requestId } });
    expect(stored).toHaveLength(2);
    expect(stored.some((t) => t.tokenHash === phone)).toBe(false);
    // As the hub's sender would have: both shows reached their push service.
    await rig.db.pushOutbox.updateMany({ where: { promptId: requestId, action: 'show' }, data: { status: 'sent' } });

    const first = await answerFromNotification(rig.deps, { token: phone as string, decision: 'allow' });
    expect(first).toEqual({ status: 'answered', sessionId, decision: 'allow' });
    const again = await answerFromNotification(rig.deps, { token: phone as string, decision: 'deny' });
    expect(again).toEqual({ status: 'already_answered', sessionId, decision: 'allow' });
    const other = await answerFromNotification(rig.deps, { token: laptop as string, decision: 'deny' });
    expect(other).toEqual({ status: 'already_answered', sessionId, decision: 'allow' });

    const row = await rig.db.permissionPrompt.findUniqueOrThrow({ where: { id: requestId } });
    expect(row).toMatchObject({ state: 'answered', answeredFrom: 'notification', answer: { decision: 'allow' } });
    // One command to the agent, named as the dashboard's on the wire (the protocol's two front ends).
    const cmds = await answerCommands(requestId);
    expect(cmds).toHaveLength(1);
    expect(cmds[0]?.payload).toMatchObject({ requestId, decision: 'allow', from: 'dashboard' });
    // Every device is told to close the notification.
    const closes = await rig.db.pushOutbox.findMany({ where: { promptId: requestId, action: 'close' } });
    expect(closes.map((c) => c.subscriptionId).sort()).toEqual([...devices].sort());
  });

  it('two presses at once: exactly one answers', async () => {
    const { requestId } = await ask('tool');
    const phone = (await tokens(requestId)).get(devices[0] as string) as string;
    const both = await Promise.all([
      answerFromNotification(rig.deps, { token: phone, decision: 'deny' }),
      answerFromNotification(rig.deps, { token: phone, decision: 'allow' }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual(['already_answered', 'answered']);
    expect(await answerCommands(requestId)).toHaveLength(1);
  });

  it('an expired token is not taken and the request still waits; an unknown one says so', async () => {
    const { sessionId, requestId } = await ask('tool');
    const phone = (await tokens(requestId)).get(devices[0] as string) as string;
    rig.clock.advance(PUSH_ANSWER_TTL_MS + 1);
    try {
      expect(await answerFromNotification(rig.deps, { token: phone, decision: 'allow' })).toEqual({ status: 'expired', sessionId });
    } finally {
      rig.clock.advance(-(PUSH_ANSWER_TTL_MS + 1));
    }
    expect((await rig.db.permissionPrompt.findUniqueOrThrow({ where: { id: requestId } })).state).toBe('pending');
    expect(await answerFromNotification(rig.deps, { token: 'x'.repeat(43), decision: 'allow' })).toEqual({ status: 'unknown' });
    expect(await answerFromNotification(rig.deps, { token: 'not a token', decision: 'allow' })).toEqual({ status: 'unknown' });
    expect(await answerCommands(requestId)).toHaveLength(0);
  });

  it('a question carries no answer token (its notification opens the page)', async () => {
    const { requestId } = await ask('question');
    const byDevice = await tokens(requestId);
    expect(byDevice.size).toBe(2);
    expect([...byDevice.values()]).toEqual([undefined, undefined]);
    expect(await rig.db.pushAnswerToken.count({ where: { promptId: requestId } })).toBe(0);
  });

  it('removing a device revokes its tokens', async () => {
    const { requestId } = await ask('tool');
    const laptop = (await tokens(requestId)).get(devices[1] as string) as string;
    // As Settings' Remove does (push.remove deletes the row; its tokens go with it by foreign key).
    await rig.db.pushSubscription.delete({ where: { id: devices[1] as string } });
    expect(await rig.db.pushAnswerToken.count({ where: { subscriptionId: devices[1] as string } })).toBe(0);
    expect(await answerFromNotification(rig.deps, { token: laptop, decision: 'allow' })).toEqual({ status: 'unknown' });
    expect((await rig.db.permissionPrompt.findUniqueOrThrow({ where: { id: requestId } })).state).toBe('pending');
  });
});
