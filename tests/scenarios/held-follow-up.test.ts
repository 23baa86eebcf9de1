// Issue 30 (a lost answer) with the real Claude Code and Codex CLIs under the real agent, hub and
// engine: a message sent while a permission request is open is held, and once the request is
// answered it still does not join the turn that asked (Codex folds a text typed into a resumed turn
// into it, and the answer the model was giving to the first message never reached the chat). It
// waits for that turn's end and goes as the next main request: each message gets its own final.
// The allowed command runs until the test creates its `go-` file, so "the tool is still running"
// is a fact the test controls, not a time.
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as services from '../../packages/core/src/services/index.ts';
import { startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem({ executors: ['claude', 'codex'] });
  // Codex asks for escalated commands under on-request approvals (workspace-write).
  await sys.db.node.update({ where: { id: sys.nodeId }, data: { codexPermissionMode: 'workspace-write' } });
  await sys.startAgent();
}, 180_000);
afterAll(async () => {
  await sys?.dispose();
});

const commandOf = (input: unknown): string => {
  const i = input as { command?: string; cmd?: string };
  return i.command ?? i.cmd ?? '';
};

describe.each(['claude', 'codex'] as const)('a message sent while %s asks for permission', (executor) => {
  it('waits for the end of the turn that asked, then gets its own answer; the first answer reaches the chat too', async () => {
    const u = randomUUID().slice(0, 8);
    const folder = sys.folder(`held-${executor}-${u}`);
    const id = (await sys.createSession(executor, folder)).id;
    await sys.waitState(id, 'Ready', 90_000);

    await sys.send(id, `please TOOLASKWAIT-${u} now`);
    const prompt = await waitUntil(
      'the permission request',
      async () => {
        const p = await sys.db.permissionPrompt.findFirst({ where: { sessionId: id, state: 'pending' } });
        return p && commandOf(p.toolInput).includes(`go-${u}`) ? p : null;
      },
      90_000,
    );
    const second = `second message ${u}: and what else?`;
    await sys.send(id, second);
    await sys.engine.settle();
    expect((await sys.db.message.findFirstOrThrow({ where: { sessionId: id, text: second } })).status).toBe('pending');

    expect((await services.answerPrompt(sys.deps, { promptId: prompt.id, decision: 'allow', from: 'telegram' })).kind).toBe('answered');
    await waitUntil(
      'the answer delivered to the CLI',
      async () => ((await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: prompt.id } })).state === 'delivered' ? true : null),
      60_000,
    );
    // The allowed command now runs (it waits for go-<u>): the request is closed and the turn goes on.
    await sys.engine.settle();
    expect((await sys.session(id)).openPrompts).toBe(0);
    const held = await sys.db.message.findFirstOrThrow({ where: { sessionId: id, text: second } });
    expect(held.status).toBe('pending');
    expect(sys.allTurns(executor).some((r) => JSON.stringify(r).includes(second))).toBe(false);

    writeFileSync(join(folder, `go-${u}`), '');
    const msgs = await sys.waitMessages(id, (st) => st.length === 2 && st.every((s) => s === 'completed'), 180_000);
    expect(existsSync(join(folder, `ran-${u}`))).toBe(true);
    expect(msgs[0]!.finalText).toMatch(/^TOOL-DONE-\d+: /);
    expect(msgs[1]!.text).toBe(second);
    expect(msgs[1]!.mainMessageId).toBeNull();
    expect(msgs[1]!.finalText).toMatch(new RegExp(`^MOCK-REPLY-\\d+: you said "${second.replace(/[?]/g, '\\?')}"$`));
    // Both answers are on their way to the chat, each under its own message.
    const finals = (await sys.outbox(id)).filter((o) => o.kind === 'final').map((o) => (o.payload as { messageId: string }).messageId);
    expect(finals).toEqual([msgs[0]!.id, msgs[1]!.id]);
  }, 420_000);
});
