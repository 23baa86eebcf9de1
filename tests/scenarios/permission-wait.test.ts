// Issue 14: a permission request nobody answers remotely within the bound (here 6 s:
// BRIA_PERMISSION_WAIT_MINUTES=0.1) is left to the computer. The chat is told, the session shows
// the wait with its cause, a late remote answer is refused as out of date, messages stay held
// (a paste would answer Claude's dialog), and an answer typed at the computer lets the turn finish
// and the held message go.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as services from '../../packages/core/src/services/index.ts';
import { startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem({ executors: ['claude'] });
  await sys.startAgent({ env: { BRIA_PERMISSION_WAIT_MINUTES: '0.1' } });
}, 120_000);
afterAll(async () => {
  await sys?.dispose();
});

it('the bound passes: the chat is told, the question waits at the computer, a remote answer is out of date, the queue holds until the computer answers', async () => {
  const folder = sys.folder('prompt-wait');
  const id = (await sys.createSession('claude', folder)).id;
  await sys.waitState(id, 'Ready', 90_000);
  await sys.send(id, 'please TOOLBASH-w1 now');
  const p = await waitUntil(
    'the prompt left to the computer',
    async () => {
      const x = await sys.db.permissionPrompt.findFirst({ where: { sessionId: id } });
      return x?.state === 'waiting_at_computer' ? x : null;
    },
    90_000,
  );
  expect(p.resolution).toMatchObject({ outcome: 'expired' });
  expect((await sys.session(id)).openPrompts).toBe(1);
  const phases = (await sys.outbox(id)).filter((o) => o.kind === 'prompt').map((o) => (o.payload as { phase: string }).phase);
  expect(phases).toEqual(['open', 'waiting_at_computer']);
  expect((await services.answerPrompt(sys.deps, { promptId: p.id, decision: 'allow', from: 'telegram' })).kind).toBe('out_of_date');
  expect(await sys.db.agentCommand.count({ where: { sessionId: id, type: 'answer_permission' } })).toBe(0);

  const held = 'sent while the computer shows the dialog';
  await sys.send(id, held);
  await sys.engine.settle();
  expect((await sys.db.message.findFirstOrThrow({ where: { sessionId: id, text: held } })).status).toBe('pending');

  // Claude's own dialog is what is left; the user answers it at the computer (Enter = "Yes").
  const { paneId } = await sys.identity(id);
  const screen = () => execFileSync('tmux', ['-L', sys.tmuxSocket, 'capture-pane', '-p', '-t', paneId], { encoding: 'utf8' });
  await waitUntil("Claude's dialog on screen", async () => /Do you want to proceed\?/.test(screen()), 30_000);
  execFileSync('tmux', ['-L', sys.tmuxSocket, 'send-keys', '-t', paneId, 'Enter']);
  const msgs = await sys.waitMessages(id, (st) => st.length === 2 && st.every((s) => s === 'completed'), 120_000);
  expect(existsSync(join(folder, 'ran-w1'))).toBe(true);
  expect(msgs[1]!.text).toBe(held);
  const after = await sys.db.permissionPrompt.findUniqueOrThrow({ where: { id: p.id } });
  expect(after.state).toBe('ended');
  expect((await sys.session(id)).openPrompts).toBe(0);
}, 300_000);
