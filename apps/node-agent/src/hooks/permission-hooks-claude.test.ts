// The real Claude Code CLI in tmux, against the Anthropic mock, asking for a Bash tool in `default`
// permission mode: the request reaches the agent through Bria's PermissionRequest hook and the
// answer given here decides whether the tool runs. The user's own hook (in ~/.claude/settings.json)
// keeps running beside Bria's per-session `--settings`.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { claudeBin } from '@bria/testkit/cli-homes';
import { waitUntil } from '@bria/testkit/wait';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeDriver } from '../executors/claude-driver.ts';
import { isAlive } from '../executors/proc-tree.ts';
import { SessionHost } from '../executors/session-host.ts';
import { createRig, is, type Rig } from '../../test-support/test-rig.ts';
import type { SessionIdentity } from '../executors/types.ts';
import { HookChannel, type PermissionRecord } from './hook-channel.ts';

let rig: Rig;
let channel: HookChannel;
let host: SessionHost;
let id: SessionIdentity;
let userHookLog: string;

/** The session's tree as the agent's registry gives it: the pane of the one CLI this test runs. */
const paneOf = () => {
  try {
    return host.identity().panePid;
  } catch {
    return null;
  }
};

beforeAll(async () => {
  rig = await createRig('claude');
  userHookLog = join(rig.root, 'user-hook.log');
  const userSettingsFile = join(rig.home, '.claude', 'settings.json');
  const userSettings = JSON.parse(await readFile(userSettingsFile, 'utf8'));
  userSettings.hooks = {
    PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `cat >> '${userHookLog}'; echo >> '${userHookLog}'`, timeout: 30 }] }],
  };
  await writeFile(userSettingsFile, JSON.stringify(userSettings));
  channel = new HookChannel({ dir: join(rig.root, 'agent', 'hooks'), boundMs: 120_000, sessionRoot: paneOf });
  await channel.open();
  host = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env });
  id = await host.start({ cwd: rig.work, sessionName: 'claude-hooks', permissionMode: 'default', settingsPath: channel.settingsFor('bria-s1') });
}, 120_000);
afterAll(async () => {
  await host?.close().catch(() => undefined);
  await channel?.close();
  await rig?.dispose();
});

/** Sends a TOOLBASH prompt and waits for Bria's hook to report its permission request. */
async function askForTool(marker: string): Promise<{ messageId: string; request: PermissionRecord }> {
  const messageId = randomUUID();
  const r = await host.deliver({ messageId, text: `please TOOLBASH-${marker} now` });
  expect(r.accepted).toBe(true);
  const request = await channel.waitFor(
    (p) => p.state === 'pending' && (p.toolInput as { command?: string } | null)?.command === `touch ran-${marker}`,
    60_000,
  );
  return { messageId, request };
}

describe('Claude PermissionRequest through the agent hook channel', () => {
  it('allow: the hook reports the request, the allowed tool runs and the final arrives', async () => {
    const { messageId, request } = await askForTool('allow1');
    expect(request).toMatchObject({ sessionId: 'bria-s1', nativeSessionId: id.nativeId, toolName: 'Bash' });
    expect(request.request).toMatchObject({ hook_event_name: 'PermissionRequest', permission_mode: 'default', cwd: rig.work });
    expect(existsSync(join(rig.work, 'ran-allow1'))).toBe(false);

    expect(channel.answer(request.requestId, { behavior: 'allow' }).ok).toBe(true);
    const final = await host.waitFor(is('final', messageId), 60_000);
    expect(final.text).toMatch(/^TOOL-DONE-\d+: is_error=false /);
    expect(existsSync(join(rig.work, 'ran-allow1'))).toBe(true);
    await channel.waitFor((p) => p.requestId === request.requestId && p.state === 'delivered', 10_000);

    const journal = await readFile(id.journalPath!, 'utf8');
    expect(journal).toContain('"type":"hook_permission_decision","decision":"allow"');
  }, 150_000);

  it('deny with a message: the tool does not run and the model gets the message', async () => {
    const { messageId, request } = await askForTool('deny1');
    channel.answer(request.requestId, { behavior: 'deny', message: 'Denied from the phone: not now' });
    const final = await host.waitFor(is('final', messageId), 60_000);
    expect(final.text).toMatch(/^TOOL-DONE-\d+: is_error=true result=Denied from the phone: not now/);
    const toModel = await rig.mock.waitForRequest((q) => q.sessionId === id.nativeId && q.toolResult?.isError === true, 10_000);
    expect(toModel.toolResult?.content).toContain('Denied from the phone: not now');
    expect(existsSync(join(rig.work, 'ran-deny1'))).toBe(false);
  }, 150_000);

  it("the user's own hook from ~/.claude/settings.json ran for both tool calls beside Bria's", async () => {
    const lines = (await readFile(userHookLog, 'utf8')).split('\n').filter((l) => l.trim());
    const calls = lines.map((l) => JSON.parse(l) as { hook_event_name: string; tool_input: { command: string } });
    expect(calls.map((c) => [c.hook_event_name, c.tool_input.command])).toEqual([
      ['PreToolUse', 'touch ran-allow1'],
      ['PreToolUse', 'touch ran-deny1'],
    ]);
    expect(channel.pending()).toEqual([]);
  });

  it('answered at the computer while the hook waits: Claude ends the hook, the request reads hook_gone', async () => {
    const { request } = await askForTool('local2');
    // Claude shows its own dialog while the hook runs (docs/cli-facts.md); this one, not an earlier one.
    await waitUntil("Claude's dialog on screen", async () => dialogFor(await rig.tmux.capture(id.paneId), 'local2'), 30_000);
    expect(channel.get(request.requestId)?.state).toBe('pending');
    const escAt = Date.now();
    await rig.tmux.sendKeys(id.paneId, ['Escape']);
    const gone = await channel.waitFor((p) => p.requestId === request.requestId && p.state !== 'pending', 30_000);
    expect(gone.state).toBe('hook_gone');
    expect(Date.parse(gone.endedAt!)).toBeGreaterThanOrEqual(escAt - 5);
    await waitUntil('the hook process gone', async () => !(await isAlive(request.hookPid!)), 10_000);
    await waitUntil('the rejection in the journal', async () => (await readFile(id.journalPath!, 'utf8')).includes('User rejected tool use'), 30_000);
    expect(existsSync(join(rig.work, 'ran-local2'))).toBe(false);
    expect(channel.answer(request.requestId, { behavior: 'allow' })).toMatchObject({ ok: false, reason: 'not_pending' });
  }, 150_000);

  it('resume with the same settings: the hook channel keeps answering after an exact resume', async () => {
    await host.close();
    host = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env });
    id = await host.resume({
      nativeId: id.nativeId,
      cwd: rig.work,
      sessionName: 'claude-hooks-2',
      permissionMode: 'default',
      settingsPath: channel.settingsFor('bria-s1'),
    });
    const { messageId, request } = await askForTool('resume1');
    expect(request.nativeSessionId).toBe(id.nativeId);
    channel.answer(request.requestId, { behavior: 'allow' });
    await host.waitFor(is('final', messageId), 60_000);
    expect(existsSync(join(rig.work, 'ran-resume1'))).toBe(true);
  }, 150_000);

  it('the agent away when the tool asks (restarting): the hook keeps trying, and the request is answered remotely once it is back', async () => {
    await channel.close();
    const messageId = randomUUID();
    expect((await host.deliver({ messageId, text: 'please TOOLBASH-back1 now' })).accepted).toBe(true);
    // Claude draws its own dialog while the hook runs; the hook cannot reach any agent yet.
    await waitUntil("Claude's dialog on screen", async () => dialogFor(await rig.tmux.capture(id.paneId), 'back1'), 30_000);
    // The agent is back (a new channel on the same socket, as after a restart; chaos seed 170016).
    channel = new HookChannel({ dir: channel.dir, boundMs: 120_000, sessionRoot: paneOf });
    await channel.open();
    const request = await channel.waitFor((p) => p.state === 'pending' && (p.toolInput as { command?: string } | null)?.command === 'touch ran-back1', 30_000);
    expect(existsSync(join(rig.work, 'ran-back1'))).toBe(false);
    expect(channel.answer(request.requestId, { behavior: 'allow' }).ok).toBe(true);
    await host.waitFor(is('final', messageId), 60_000);
    expect(existsSync(join(rig.work, 'ran-back1'))).toBe(true);
  }, 150_000);

  it('agent unreachable: the hook answers nothing and Claude asks at the computer itself', async () => {
    await channel.close();
    const messageId = randomUUID();
    expect((await host.deliver({ messageId, text: 'please TOOLBASH-local1 now' })).accepted).toBe(true);
    await waitUntil("Claude's dialog on screen", async () => dialogFor(await rig.tmux.capture(id.paneId), 'local1'), 30_000);
    expect(existsSync(join(rig.work, 'ran-local1'))).toBe(false);
    // The agent restarts: a new host attaches to the pane knowing of no running turn (chaos seed
    // 150011). A message handed to it must not be pasted: a paste + Enter is the dialog's "Yes".
    const offset = host.journalOffset;
    host.detach();
    host = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env });
    expect(await host.attach(id, { journalOffset: offset })).toEqual({ ok: true });
    await expect(host.deliver({ messageId: randomUUID(), text: 'please TOOLBASH-attached1 now' })).rejects.toMatchObject({
      code: 'not_ready',
      message: 'a permission dialog is on the screen',
    });
    expect(dialogFor(await rig.tmux.capture(id.paneId), 'local1')).toBe(true);
    expect(existsSync(join(rig.work, 'ran-local1'))).toBe(false);
    expect(await readFile(id.journalPath!, 'utf8')).not.toContain('TOOLBASH-attached1');
    // The refusal tells what the session waits for at the computer, once per dialog.
    expect((await host.waitFor(is('blocked_on_prompt'), 5_000)).promptText).toContain('touch ran-local1');
    await expect(host.deliver({ messageId: randomUUID(), text: 'please TOOLBASH-attached2 now' })).rejects.toMatchObject({ code: 'not_ready' });
    expect(host.events.filter((e) => e.type === 'blocked_on_prompt')).toHaveLength(1);
    // Rejected at the computer (one Esc, per docs/cli-facts.md): the turn ends there and the tool never ran.
    await rig.tmux.sendKeys(id.paneId, ['Escape']);
    await waitUntil('the rejection in the journal', async () => (await readFile(id.journalPath!, 'utf8')).includes('User rejected tool use'), 30_000);
    expect(existsSync(join(rig.work, 'ran-local1'))).toBe(false);
  }, 150_000);
});

/** Claude's own permission dialog for this marker's command is on screen. */
function dialogFor(screen: string, marker: string): boolean {
  return /Do you want to proceed\?/.test(screen) && screen.includes(`touch ran-${marker}`);
}
