// Issue 14: a start that waits on the CLI's folder-trust dialog is answered remotely — trusted
// through a prompt (the agent presses the dialog's "trust" choice only after it read that dialog on
// the pane), or cancelled: the CLI is closed, nothing is left running, the session is archived.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as services from '../../packages/core/src/services/index.ts';
import { procAlive, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

let sys: System;
const dirs: string[] = [];
const untrusted = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'bria-untrusted-'));
  dirs.push(d);
  return d;
};
beforeAll(async () => {
  sys = await startSystem({ executors: ['claude'] });
  await sys.startAgent();
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const dialogPrompt = (sessionId: string) =>
  waitUntil(
    'the start dialog as a prompt',
    async () => (await sys.db.permissionPrompt.findFirst({ where: { sessionId, kind: 'dialog', state: 'pending' } })) ?? null,
    60_000,
  );

describe('Claude folder-trust dialog at start, answered remotely', () => {
  it('cancel: the start ends, the CLI is gone, the session is archived and its queued message is not delivered', async () => {
    const s = await sys.createSession('claude', untrusted());
    const p = await dialogPrompt(s.id);
    expect(p.toolName).toBe('folder_trust');
    await sys.send(s.id, 'queued behind the dialog');
    const pids = (await sys.db.sessionEvidence.findMany({ where: { sessionId: s.id, event: 'blocked_on_prompt' } })).length;
    expect(pids).toBeGreaterThan(0);
    expect((await services.answerPrompt(sys.deps, { promptId: p.id, decision: 'deny', from: 'telegram' })).kind).toBe('answered');
    const row = await sys.waitState(s.id, 'Archived', 90_000);
    expect(row.exitVerified).toBe(false);
    const msgs = await sys.messages(s.id);
    expect(msgs.map((m) => m.status)).toEqual(['failed']);
    const closed = (await sys.evidence(s.id)).find(
      (e) => e.event === 'process_exited_verified' || (e.evidence as { verified?: boolean } | null)?.verified === true,
    );
    expect(closed).toBeTruthy();
    const pid = (closed!.evidence as { pids?: string } | null)?.pids;
    for (const x of (pid ?? '').split(',').filter(Boolean)) expect(procAlive(Number(x))).toBe(false);
    expect((await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: p.id } })).state).not.toBe('pending');
  }, 240_000);

  it('trust: the agent answers the dialog it read on the pane, the same CLI becomes Ready and the queued message runs once', async () => {
    const s = await sys.createSession('claude', untrusted());
    const p = await dialogPrompt(s.id);
    await sys.send(s.id, 'after a remote trust');
    expect((await services.answerPrompt(sys.deps, { promptId: p.id, decision: 'allow', from: 'dashboard' })).kind).toBe('answered');
    await sys.waitState(s.id, ['Ready', 'Running'], 90_000);
    const msgs = await sys.waitMessages(s.id, (st) => st[0] === 'completed', 90_000);
    expect(msgs).toHaveLength(1);
    await waitUntil(
      'the dialog prompt over',
      async () => ((await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: p.id } })).state !== 'answered' ? true : null),
      30_000,
    );
    expect(['delivered', 'ended']).toContain((await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: p.id } })).state);
  }, 240_000);

  it("the agent restarted while the start waits on its dialog: the recovered start's dialog is offered again and answering it makes the session Ready (chaos seed 21007)", async () => {
    const s = await sys.createSession('claude', untrusted());
    const first = await dialogPrompt(s.id);
    await sys.send(s.id, 'queued across an agent restart');
    await sys.killAgent();
    await sys.startAgent();
    // The recovery starts the CLI again; its trust dialog becomes the prompt to answer, the first one is over.
    const again = await waitUntil(
      "the recovered start's dialog as a prompt",
      async () =>
        (await sys.db.permissionPrompt.findFirst({ where: { sessionId: s.id, kind: 'dialog', state: 'pending', generation: { gt: first.generation } } })) ??
        null,
      120_000,
    );
    expect((await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: first.id } })).state).not.toBe('pending');
    expect(await sys.db.permissionPrompt.count({ where: { sessionId: s.id, kind: 'dialog', state: 'pending' } })).toBe(1);
    expect((await services.answerPrompt(sys.deps, { promptId: again.id, decision: 'allow', from: 'telegram' })).kind).toBe('answered');
    await sys.waitState(s.id, ['Ready', 'Running'], 120_000);
    const msgs = await sys.waitMessages(s.id, (st) => st[0] === 'completed', 120_000);
    expect(msgs).toHaveLength(1);
    expect(sys.allTurns('claude').filter((q) => (q.userText ?? '').endsWith('queued across an agent restart'))).toHaveLength(1);
  }, 300_000);
});
