// Cancel and edit of a queued message before the hand-over (issue 33), with the real CLIs in tmux
// under the real agent, hub, engine and Postgres. The queue is held by facts the test controls, never
// by a time: a session still starting, or a busy turn that asked for permission (its command then
// runs until the test creates its `go-` file), so no `deliver` can exist yet and the cancel and the
// edit are certain to win; the race itself is covered on a real database in
// packages/core/src/services/sessions/change-message.test.ts.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerPrompt, cancelMessage, editMessage } from '../../packages/core/src/services/index.ts';
import { type Executor, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';
import { assertInvariants, reached } from './invariants.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  // Codex asks for escalated commands under on-request approvals (workspace-write).
  await sys.db.node.update({ where: { id: sys.nodeId }, data: { codexPermissionMode: 'workspace-write' } });
  await sys.startAgent();
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
});

describe.each(['claude', 'codex'] as Executor[])('%s', (executor) => {
  it('a cancelled message never reaches the model, the next one goes next, an edited one arrives exactly as edited', async () => {
    const s = await sys.createSession(executor, sys.folder(`cancel-edit-${executor}`));
    const first = `first ${executor} alpha`;
    const cancelled = `cancel me ${executor} beta`;
    const draft = `draft ${executor} gamma`;
    const edited = `edited ${executor} delta, exactly this`;
    for (const t of [first, cancelled, draft]) await sys.send(s.id, t);
    const rows = await sys.db.message.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' }, select: { id: true } });
    const [, toCancel, toEdit] = rows.map((r) => r.id);
    await cancelMessage({ db: sys.db }, { messageId: toCancel! });
    await editMessage({ db: sys.db }, { messageId: toEdit!, text: edited });
    expect((await sys.session(s.id)).state).toBe('Starting');

    const msgs = await sys.waitMessages(s.id, (st) => st.length === 3 && st[0] === 'completed' && st[1] === 'cancelled' && st[2] === 'completed', 120_000);
    expect(msgs.map((m) => m.text)).toEqual([first, cancelled, edited]);
    const native = (await sys.session(s.id)).nativeSessionId!;
    // The model's request log: the first text, then the edited one exactly; never the cancelled one
    // nor the draft.
    const seen = sys
      .turns(executor, native)
      .map((r) => (r.userText ?? '').trimEnd())
      .filter((t) => [first, cancelled, draft, edited].some((x) => t.endsWith(x)));
    expect(seen).toHaveLength(2);
    expect(seen[0]!.endsWith(first)).toBe(true);
    expect(seen[1]!.endsWith(edited)).toBe(true);
    expect(reached(sys, executor, native, cancelled)).toBe(0);
    expect(reached(sys, executor, native, draft)).toBe(0);
    expect(await sys.db.agentCommand.count({ where: { sessionId: s.id, type: 'deliver', payload: { path: ['messageId'], equals: toCancel! } } })).toBe(0);
    expect((await sys.db.message.findUniqueOrThrow({ where: { id: toEdit! } })).originalText).toBe(draft);
    await assertInvariants(sys, [s.id]);
  }, 300_000);

  it('busy: while a turn runs, a queued message cancelled never reaches the model and the next queued one (edited) is delivered next', async () => {
    const u = randomUUID().slice(0, 8);
    const folder = sys.folder(`cancel-busy-${executor}-${u}`);
    const id = (await sys.createSession(executor, folder)).id;
    await sys.waitState(id, 'Ready', 90_000);
    await sys.send(id, `please TOOLASKWAIT-${u} now`);
    const prompt = await waitUntil(
      'the permission request',
      async () => sys.db.permissionPrompt.findFirst({ where: { sessionId: id, state: 'pending' } }),
      90_000,
    );
    const cancelled = `busy cancel ${u} beta`;
    const draft = `busy draft ${u} gamma`;
    const edited = `busy edited ${u} delta`;
    await sys.send(id, cancelled);
    await sys.send(id, draft);
    const byText = async (text: string) => (await sys.db.message.findFirstOrThrow({ where: { sessionId: id, text } })).id;
    const toCancel = await byText(cancelled);
    const toEdit = await byText(draft);
    expect(await cancelMessage({ db: sys.db }, { messageId: toCancel })).toMatchObject({ status: 'cancelled' });
    expect(await editMessage({ db: sys.db }, { messageId: toEdit, text: edited })).toMatchObject({ status: 'pending' });

    expect((await answerPrompt(sys.deps, { promptId: prompt.id, decision: 'allow', from: 'dashboard' })).kind).toBe('answered');
    writeFileSync(join(folder, `go-${u}`), '');
    const msgs = await sys.waitMessages(id, (st) => st.length === 3 && st[0] === 'completed' && st[1] === 'cancelled' && st[2] === 'completed', 180_000);
    expect(msgs[0]!.finalText).toMatch(/^TOOL-DONE-\d+: /);
    expect(msgs[2]!.text).toBe(edited);
    const seenTexts = sys.allTurns(executor).map((r) => JSON.stringify(r));
    expect(seenTexts.some((t) => t.includes(cancelled))).toBe(false);
    expect(seenTexts.some((t) => t.includes(draft))).toBe(false);
    expect(seenTexts.filter((t) => t.includes(edited)).length).toBeGreaterThan(0);
    expect(msgs[2]!.finalText).toMatch(new RegExp(`^MOCK-REPLY-\\d+: you said "${edited}"$`));
    // Not `assertInvariants`: Codex's request after the allowed command's output repeats the first
    // message's text, which its counter takes for a second turn (held-follow-up.test.ts checks the same way).
    expect(reached(sys, executor, (await sys.session(id)).nativeSessionId!, edited)).toBe(1);
  }, 420_000);
});
