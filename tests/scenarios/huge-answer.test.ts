// Issue 30 with the real Claude Code CLI under the real agent, hub, engine and Postgres: an answer of
// 1.2 MB to a real question (AskUserQuestion, through Bria's hook) once became an unbounded
// `answer_permission` command the agent could not take, and the hub closed the connection on it again
// after every reconnect. Now it is refused where it is made, with the reason; nothing is queued, the
// computer stays on the same connection, and an answer of a normal size still reaches the model.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as services from '../../packages/core/src/services/index.ts';
import { startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem({ executors: ['claude'] });
  await sys.startAgent();
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
});

describe('a 1.2 MB answer to a real question', () => {
  it('is refused with its reason, nothing is queued, the node stays online, and a normal answer reaches the model', async () => {
    const folder = sys.folder(`huge-answer-${randomUUID().slice(0, 8)}`);
    const id = (await sys.createSession('claude', folder)).id;
    await sys.waitState(id, 'Ready', 90_000);
    const node = () => sys.db.node.findUniqueOrThrow({ where: { id: sys.nodeId }, select: { online: true, connectedAt: true } });
    const before = await node();
    expect(before.online).toBe(true);

    await sys.send(id, 'please TOOLASK now');
    const question = await waitUntil(
      'the question as a prompt',
      async () => sys.db.permissionPrompt.findFirst({ where: { sessionId: id, state: 'pending', kind: 'question' } }),
      90_000,
    );
    const asked = JSON.stringify(question.toolInput);
    expect(asked).toContain('Which color do you prefer?');

    // ~1.2 MB as UTF-8: 300 answers of 2,000 two-byte characters.
    const huge = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`q${i}`, 'Ж'.repeat(2000)]));
    expect(Buffer.byteLength(JSON.stringify(huge))).toBeGreaterThan(1_200_000);
    const err = await services.answerPrompt(sys.deps, { promptId: question.id, decision: 'allow', answers: huge, from: 'telegram' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INVALID_INPUT', reason: 'too_long', message: expect.stringMatching(/answers out of bounds/) });
    // Nothing queued for the agent, the question still waits for the user.
    expect(await sys.db.agentCommand.count({ where: { sessionId: id, type: 'answer_permission' } })).toBe(0);
    expect((await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: question.id } })).state).toBe('pending');

    // A normal answer goes through on the same connection and the model is given it.
    const answered = await services.answerPrompt(sys.deps, {
      promptId: question.id,
      decision: 'allow',
      answers: { 'Which color do you prefer?': 'Blue' },
      from: 'telegram',
    });
    expect(answered.kind).toBe('answered');
    const msgs = await sys.waitMessages(id, (st) => st[0] === 'completed', 120_000);
    expect(msgs[0]!.finalText).toBeTruthy();
    const toolTurn = sys.allTurns('claude').find((r) => r.toolResult && JSON.stringify(r.toolResult).includes('Blue'));
    expect(toolTurn, 'the model got the answer "Blue" as the tool result').toBeTruthy();
    expect(await node()).toEqual({ online: true, connectedAt: before.connectedAt });
    // The agent never saw a frame it had to refuse.
    expect(sys.agentLog()).not.toMatch(/frame_refused|event_refused|too_long/);
  }, 300_000);
});
