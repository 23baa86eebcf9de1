// Issue 14 with the real Codex CLI under the real agent, hub and engine: an escalated command asks
// through Bria's per-run hook. Allowed remotely it runs; "I will answer at the computer" lets the
// hook go, so Codex shows its own dialog (it shows none while the hook waits), the queue holds, and
// the answer typed there finishes the turn.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as services from '../../packages/core/src/services/index.ts';
import { startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

let sys: System;
let id = '';
let folder = '';
beforeAll(async () => {
  sys = await startSystem({ executors: ['codex'] });
  // Codex asks for escalated commands under on-request approvals (workspace-write: the node's default mode for new Codex sessions).
  await sys.db.node.update({ where: { id: sys.nodeId }, data: { codexPermissionMode: 'workspace-write' } });
  await sys.startAgent();
  folder = sys.folder('prompts-codex');
  id = (await sys.createSession('codex', folder)).id;
  await sys.waitState(id, 'Ready', 90_000);
}, 180_000);
afterAll(async () => {
  await sys?.dispose();
});

const pendingPrompt = (command: string) =>
  waitUntil(
    `a pending prompt for ${command}`,
    async () => {
      const p = await sys.db.permissionPrompt.findFirst({ where: { sessionId: id, state: 'pending' } });
      return p && (p.toolInput as { command?: string }).command === command ? p : null;
    },
    90_000,
  );

describe('Codex permission requests through the whole stack', () => {
  it("allowed remotely: the command runs and the final arrives; the model's justification is on the request", async () => {
    await sys.send(id, 'please TOOLSHELL-c1 now');
    const p = await pendingPrompt('touch ran-c1');
    expect(p).toMatchObject({ kind: 'tool', canAlwaysAllow: false, justification: 'Create the marker ran-c1' });
    expect((await services.answerPrompt(sys.deps, { promptId: p.id, decision: 'allow', from: 'telegram' })).kind).toBe('answered');
    const msgs = await sys.waitMessages(id, (st) => st[0] === 'completed', 120_000);
    expect(msgs[0]!.finalText).toMatch(/^TOOL-DONE-\d+: /);
    expect(existsSync(join(folder, 'ran-c1'))).toBe(true);
  }, 240_000);

  it('left to the computer: Codex shows its own dialog, the queue holds, and Enter there runs the command', async () => {
    await sys.send(id, 'please TOOLSHELL-c2 now');
    const p = await pendingPrompt('touch ran-c2');
    const { paneId } = await sys.identity(id);
    const screen = () => execFileSync('tmux', ['-L', sys.tmuxSocket, 'capture-pane', '-p', '-t', paneId], { encoding: 'utf8' });
    expect(screen()).not.toMatch(/Would you like to run the following command\?/);
    expect((await services.answerPrompt(sys.deps, { promptId: p.id, decision: 'at_computer', from: 'dashboard' })).kind).toBe('answered');
    await waitUntil(
      'the prompt waits at the computer',
      async () => ((await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: p.id } })).state === 'waiting_at_computer' ? true : null),
      30_000,
    );
    await waitUntil("Codex's own dialog", async () => (/Would you like to run the following command\?/.test(screen()) ? true : null), 30_000);
    const held = 'typed while Codex shows its dialog';
    await sys.send(id, held);
    await sys.engine.settle();
    expect((await sys.db.message.findFirstOrThrow({ where: { sessionId: id, text: held } })).status).toBe('pending');
    execFileSync('tmux', ['-L', sys.tmuxSocket, 'send-keys', '-t', paneId, 'Enter']);
    const msgs = await sys.waitMessages(id, (st) => st.length === 3 && st.every((s) => s === 'completed'), 120_000);
    expect(existsSync(join(folder, 'ran-c2'))).toBe(true);
    expect(msgs[2]!.text).toBe(held);
    expect((await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: p.id } })).state).toBe('ended');
  }, 300_000);
});
