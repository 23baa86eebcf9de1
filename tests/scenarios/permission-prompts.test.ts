// Issue 14 through the whole stack: the real Claude Code CLI in tmux under the real node agent,
// the hub, the engine and Postgres. A Bash tool call in `default` permission mode reaches Bria
// through the agent's PermissionRequest hook; the answer is given through the same service the
// dashboard and the bot call, and what happened is read back physically (the marker file, the
// mock model's log, the database rows).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
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

const pendingPrompt = (sessionId: string, command: string) =>
  waitUntil(
    `a pending prompt for ${command}`,
    async () => {
      const p = await sys.db.permissionPrompt.findFirst({ where: { sessionId, state: 'pending' } });
      return p && (p.toolInput as { command?: string }).command === command ? p : null;
    },
    90_000,
  );

const answer = (promptId: string, decision: 'allow' | 'deny' | 'always_allow', from: 'telegram' | 'dashboard', message?: string) =>
  services.answerPrompt(sys.deps, { promptId, decision, from, ...(message ? { message } : {}) });

describe('permission requests from the real Claude CLI, answered remotely', () => {
  let id = '';
  let folder = '';

  it('allow: the chat is told within the request, the answer reaches the CLI once, the tool runs and the final arrives', async () => {
    folder = sys.folder('prompts-claude');
    id = (await sys.createSession('claude', folder)).id;
    await sys.waitState(id, 'Ready', 90_000);
    await sys.send(id, 'please TOOLBASH-p1 now');
    const p = await pendingPrompt(id, 'touch ran-p1');
    expect(p).toMatchObject({ kind: 'tool', toolName: 'Bash', canAlwaysAllow: true, answerId: null });
    expect((await sys.session(id)).openPrompts).toBe(1);
    expect(existsSync(join(folder, 'ran-p1'))).toBe(false);
    // The chat gets the request (the bot renders it from the row).
    const open = (await sys.outbox(id)).filter((o) => o.kind === 'prompt' && (o.payload as { phase: string }).phase === 'open');
    expect(open.map((o) => (o.payload as { promptId: string }).promptId)).toEqual([p.id]);

    const r = await answer(p.id, 'allow', 'dashboard');
    expect(r.kind).toBe('answered');
    const done = await sys.waitMessages(id, (st) => st[0] === 'completed', 90_000);
    expect(done[0]!.finalText).toMatch(/^TOOL-DONE-\d+: is_error=false /);
    expect(existsSync(join(folder, 'ran-p1'))).toBe(true);
    const row = await waitUntil(
      'prompt delivered',
      async () => {
        const x = await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: p.id } });
        return x.state === 'delivered' ? x : null;
      },
      30_000,
    );
    expect(row).toMatchObject({ answeredFrom: 'dashboard', answer: { decision: 'allow' } });
    expect(await sys.db.agentCommand.count({ where: { sessionId: id, type: 'answer_permission' } })).toBe(1);
    expect((await sys.session(id)).openPrompts).toBe(0);
    // The timeline: asked, answered (who), and the agent's acknowledgement.
    const ev = (await sys.evidence(id)).map((e) => e.event);
    expect(ev).toEqual(expect.arrayContaining(['permission_request', 'permission_answered', 'permission_resolved']));
    expect(ev.indexOf('permission_request')).toBeLessThan(ev.indexOf('permission_answered'));
  }, 240_000);

  it('a message sent while the request waits is held, never pasted into the dialog, and delivered byte-exact after the answer; deny carries its reason to the model', async () => {
    await sys.send(id, 'please TOOLBASH-p2 now');
    const p = await pendingPrompt(id, 'touch ran-p2');
    const held = 'held while asked: ünïcode & <tags> "quotes"';
    await sys.send(id, held);
    // The engine's safety poll and the NOTIFY both had their chance: the queue did not hand it over.
    const before = sys.allTurns('claude').length;
    await waitUntil(
      'the held message seen by the pump',
      async () => (await sys.db.message.findFirst({ where: { sessionId: id, text: held } })) ?? null,
      10_000,
    );
    await sys.engine.settle();
    const m = await sys.db.message.findFirstOrThrow({ where: { sessionId: id, text: held } });
    expect(m.status).toBe('pending');
    expect(await sys.db.agentCommand.count({ where: { sessionId: id, type: 'deliver', payload: { path: ['messageId'], equals: m.id } } })).toBe(0);

    const r = await answer(p.id, 'deny', 'telegram', 'Denied from the phone: not now');
    expect(r.kind).toBe('answered');
    const toModel = await sys.mocks.claude.waitForRequest(
      (q) => q.toolResult?.isError === true && (q.toolResult.content ?? '').includes('Denied from the phone: not now'),
      60_000,
    );
    expect(toModel).toBeTruthy();
    const all = await sys.waitMessages(id, (st) => st.length === 3 && st.every((s) => s === 'completed'), 120_000);
    expect(existsSync(join(folder, 'ran-p2'))).toBe(false);
    expect(all[1]!.finalText).toMatch(/^TOOL-DONE-\d+: is_error=true result=Denied from the phone: not now/);
    // The held message reached the model exactly as sent, after the denied turn.
    const asked = sys
      .allTurns('claude')
      .slice(before)
      .filter((q) => (q.userText ?? '').endsWith(held));
    expect(asked).toHaveLength(1);
    expect(all[2]!.text).toBe(held);
  }, 300_000);

  it('two answers at once: exactly one wins and reaches the CLI; the other is told', async () => {
    await sys.send(id, 'please TOOLBASH-p3 now');
    const p = await pendingPrompt(id, 'touch ran-p3');
    const [a, b] = await Promise.all([answer(p.id, 'allow', 'dashboard'), answer(p.id, 'deny', 'telegram')]);
    expect([a.kind, b.kind].sort()).toEqual(['already_answered', 'answered']);
    const winner = a.kind === 'answered' ? 'allow' : 'deny';
    expect(await sys.db.agentCommand.count({ where: { sessionId: id, type: 'answer_permission', payload: { path: ['requestId'], equals: p.id } } })).toBe(1);
    await sys.waitMessages(id, (st) => st.length === 4 && st[3] === 'completed', 120_000);
    expect(existsSync(join(folder, 'ran-p3'))).toBe(winner === 'allow');
    // A later press on the same request is out of date or already answered, never a second answer.
    expect((await answer(p.id, 'allow', 'telegram')).kind).toBe('already_answered');
    expect(await sys.db.agentCommand.count({ where: { sessionId: id, type: 'answer_permission', payload: { path: ['requestId'], equals: p.id } } })).toBe(1);
  }, 300_000);

  it('the agent killed while the request waits: the hook reconnects to the restarted agent, the same request is answered once and the tool runs', async () => {
    const n = (await sys.messages(id)).length;
    await sys.send(id, 'please TOOLBASH-p4 now');
    const p = await pendingPrompt(id, 'touch ran-p4');
    await sys.killAgent();
    await sys.startAgent();
    // Nothing about the request changed: no second request, not lost, still the one to answer.
    await waitUntil('the session re-attached', async () => ((await sys.session(id)).state === 'Running' ? true : null), 90_000);
    expect(await sys.db.permissionPrompt.count({ where: { sessionId: id, toolInput: { path: ['command'], equals: 'touch ran-p4' } } })).toBe(1);
    expect((await services.answerPrompt(sys.deps, { promptId: p.id, decision: 'allow', from: 'telegram' })).kind).toBe('answered');
    await sys.waitMessages(id, (st) => st.length === n + 1 && st[n] === 'completed', 120_000);
    expect(existsSync(join(folder, 'ran-p4'))).toBe(true);
    expect((await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: p.id } })).state).toBe('delivered');
  }, 300_000);

  it('the hub restarted while the request waits: the answer is stored, sent once the agent is back, and the tool runs', async () => {
    const n = (await sys.messages(id)).length;
    await sys.send(id, 'please TOOLBASH-p5 now');
    const p = await pendingPrompt(id, 'touch ran-p5');
    await sys.restartHub(0, async () => {
      expect((await services.answerPrompt(sys.deps, { promptId: p.id, decision: 'allow', from: 'dashboard' })).kind).toBe('answered');
    });
    await sys.waitMessages(id, (st) => st.length === n + 1 && st[n] === 'completed', 120_000);
    expect(existsSync(join(folder, 'ran-p5'))).toBe(true);
    expect(await sys.db.agentCommand.count({ where: { sessionId: id, type: 'answer_permission', payload: { path: ['requestId'], equals: p.id } } })).toBe(1);
  }, 300_000);

  it('the screen fallback stayed silent: every dialog of this file was a request a hook reported, so the chat got no "waits on a dialog" notice', async () => {
    // Claude showed its dialog for each of the five requests above, for seconds each, while the agent's
    // screen check ran every second; each of those checks decided long before now.
    expect(await sys.db.sessionEvidence.count({ where: { sessionId: id, event: 'permission_request' } })).toBe(5);
    expect((await sys.outbox(id)).filter((o) => o.kind === 'blocked_on_prompt')).toEqual([]);
  });
});
