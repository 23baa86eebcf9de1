// The real Codex CLI in tmux, against the OpenAI mock, in Bria's `accept-edits` mode (`-a on-request
// -s workspace-write`): a command the model wants to run outside the sandbox reaches the agent
// through Bria's PermissionRequest hook, given per run with `-c` overrides (hook + its trust entry),
// and the answer given here decides whether it runs. The user's own hooks.json hook, trusted in
// their config.toml, keeps running; neither file is changed.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { codexBin } from '@bria/testkit/cli-homes';
import { waitUntil } from '@bria/testkit/wait';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexDriver } from '../executors/codex-driver.ts';
import { SessionHost } from '../executors/session-host.ts';
import { createRig, is, type Rig } from '../../test-support/test-rig.ts';
import type { SessionIdentity } from '../executors/types.ts';
import { codexHookTrustHash } from './cli-hook-config.ts';
import { HookChannel, type PermissionRecord } from './hook-channel.ts';

let rig: Rig;
let channel: HookChannel;
let host: SessionHost;
let id: SessionIdentity;
let userHookLog: string;
let userFiles: { trust: string; hooks: string };

/** The session's tree as the agent's registry gives it: the pane of the one CLI this test runs. */
const paneOf = () => {
  try {
    return host.identity().panePid;
  } catch {
    return null;
  }
};

beforeAll(async () => {
  rig = await createRig('codex');
  const codexHome = rig.env.CODEX_HOME!;
  userHookLog = join(rig.root, 'user-hook.log');
  // The user's own hook, trusted the way Codex records it when the user trusts it in /hooks.
  const command = `cat >> '${userHookLog}'; echo >> '${userHookLog}'`;
  await writeFile(join(codexHome, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command, timeout: 30 }] }] } }));
  const key = `${codexHome}/hooks.json:pre_tool_use:0:0`;
  const trust = `[hooks.state.${JSON.stringify(key)}]\ntrusted_hash = ${JSON.stringify(codexHookTrustHash('pre_tool_use', command, 30))}\n`;
  await appendFile(join(codexHome, 'config.toml'), `\n${trust}`);
  userFiles = { trust, hooks: await readFile(join(codexHome, 'hooks.json'), 'utf8') };

  channel = new HookChannel({ dir: join(rig.root, 'agent', 'hooks'), boundMs: 120_000, sessionRoot: paneOf });
  await channel.open();
  host = new SessionHost({ driver: codexDriver, tmux: rig.tmux, bin: codexBin, env: rig.env });
  // A hooks review dialog at start would leave the host short of its prompt: the start fails.
  id = await host.start({ cwd: rig.work, sessionName: 'codex-hooks', permissionMode: 'workspace-write', codexHooks: channel.codexConfigArgs('bria-c1') });
}, 120_000);
afterAll(async () => {
  await host?.close().catch(() => undefined);
  await channel?.close();
  await rig?.dispose();
});

/** Sends a TOOLSHELL prompt and waits for Bria's hook to report its permission request. */
async function askForTool(marker: string): Promise<{ messageId: string; request: PermissionRecord }> {
  const messageId = randomUUID();
  const r = await host.deliver({ messageId, text: `please TOOLSHELL-${marker} now` });
  expect(r.accepted).toBe(true);
  const request = await channel.waitFor(
    (p) => p.state === 'pending' && (p.toolInput as { command?: string } | null)?.command === `touch ran-${marker}`,
    60_000,
  );
  return { messageId, request };
}

describe('Codex PermissionRequest through the agent hook channel (per-run -c hooks)', () => {
  it('allow: the request reaches the channel with its justification, the command runs and the final arrives', async () => {
    const { messageId, request } = await askForTool('allow1');
    expect(request).toMatchObject({
      sessionId: 'bria-c1',
      nativeSessionId: id.nativeId,
      executor: 'codex',
      kind: 'tool',
      toolName: 'Bash',
      justification: 'Create the marker ran-allow1',
    });
    expect(request.request).toMatchObject({ hook_event_name: 'PermissionRequest', cwd: rig.work });
    expect(existsSync(join(rig.work, 'ran-allow1'))).toBe(false);

    expect(channel.answer(request.requestId, { behavior: 'allow' }).ok).toBe(true);
    const final = await host.waitFor(is('final', messageId), 60_000);
    expect(final.text).toMatch(/^TOOL-DONE-\d+: /);
    expect(final.text).toContain('Process exited with code 0');
    expect(existsSync(join(rig.work, 'ran-allow1'))).toBe(true);
    await channel.waitFor((p) => p.requestId === request.requestId && p.state === 'delivered', 10_000);
  }, 150_000);

  it('deny with a message: the command does not run and the model gets the message', async () => {
    const { messageId, request } = await askForTool('deny1');
    expect(channel.answer(request.requestId, { behavior: 'allow', alwaysAllow: true })).toMatchObject({ ok: false, reason: 'unsupported' });
    channel.answer(request.requestId, { behavior: 'deny', message: 'Denied from the phone: not now' });
    const final = await host.waitFor(is('final', messageId), 60_000);
    expect(final.text).toContain('Denied from the phone: not now');
    const toModel = await rig.mock.waitForRequest(
      (q) => q.sessionId === id.nativeId && q.toolResult?.toolName === 'exec_command' && q.toolResult.content.includes('not now'),
      10_000,
    );
    expect(toModel.toolResult?.toolInput).toMatchObject({ cmd: 'touch ran-deny1' });
    expect(existsSync(join(rig.work, 'ran-deny1'))).toBe(false);
  }, 150_000);

  it("the user's own trusted hooks.json hook ran for both calls, and neither of the user's files got Bria's hook", async () => {
    const lines = (await readFile(userHookLog, 'utf8')).split('\n').filter((l) => l.trim());
    const calls = lines.map((l) => JSON.parse(l) as { hook_event_name: string; tool_input: { command: string } });
    expect(calls.map((c) => [c.hook_event_name, c.tool_input.command])).toEqual([
      ['PreToolUse', 'touch ran-allow1'],
      ['PreToolUse', 'touch ran-deny1'],
    ]);
    // Codex writes its own state into config.toml (e.g. `screen_reader_detection_done`); nothing of
    // Bria's hook or its trust reaches the file, and the user's trust entry is still there.
    const config = await readFile(join(rig.env.CODEX_HOME!, 'config.toml'), 'utf8');
    expect(config).not.toContain('session-flags');
    expect(config).not.toContain('permission-hook');
    expect(config).toContain(userFiles.trust);
    expect(await readFile(join(rig.env.CODEX_HOME!, 'hooks.json'), 'utf8')).toBe(userFiles.hooks);
    expect(channel.pending()).toEqual([]);
  });

  it('resume with the same overrides: the hook keeps answering after an exact resume', async () => {
    await host.close();
    host = new SessionHost({ driver: codexDriver, tmux: rig.tmux, bin: codexBin, env: rig.env });
    id = await host.resume({
      nativeId: id.nativeId,
      cwd: rig.work,
      sessionName: 'codex-hooks-2',
      permissionMode: 'workspace-write',
      codexHooks: channel.codexConfigArgs('bria-c1'),
    });
    const { messageId, request } = await askForTool('resume1');
    expect(request.nativeSessionId).toBe(id.nativeId);
    channel.answer(request.requestId, { behavior: 'allow' });
    await host.waitFor(is('final', messageId), 60_000);
    expect(existsSync(join(rig.work, 'ran-resume1'))).toBe(true);
  }, 150_000);

  it('no answer within the bound: the hook gives up, the request reads expired and Codex asks at the computer', async () => {
    await host.close();
    const short = new HookChannel({ dir: join(rig.root, 'agent', 'hooks-short'), boundMs: 4_000, sessionRoot: paneOf });
    await short.open();
    try {
      host = new SessionHost({ driver: codexDriver, tmux: rig.tmux, bin: codexBin, env: rig.env });
      id = await host.resume({
        nativeId: id.nativeId,
        cwd: rig.work,
        sessionName: 'codex-hooks-3',
        permissionMode: 'workspace-write',
        codexHooks: short.codexConfigArgs('bria-c1'),
      });
      const messageId = randomUUID();
      expect((await host.deliver({ messageId, text: 'please TOOLSHELL-late1 now' })).accepted).toBe(true);
      const request = await short.waitFor((p) => (p.toolInput as { command?: string } | null)?.command === 'touch ran-late1', 60_000);
      // Codex shows no dialog while its hook runs (docs/cli-facts.md); it does once the hook has given up.
      expect(dialogFor(await rig.tmux.capture(id.paneId), 'late1')).toBe(false);
      const expired = await short.waitFor((p) => p.requestId === request.requestId && p.state !== 'pending', 30_000);
      expect(expired.state).toBe('expired');
      await waitUntil("Codex's own dialog on screen", async () => dialogFor(await rig.tmux.capture(id.paneId), 'late1'), 30_000);
      expect(existsSync(join(rig.work, 'ran-late1'))).toBe(false);
      expect(short.answer(request.requestId, { behavior: 'allow' })).toMatchObject({ ok: false, reason: 'not_pending' });
    } finally {
      await short.close();
    }
  }, 150_000);
});

/** Codex's own approval dialog for this marker's command is on screen (docs/cli-facts.md, "Dialogs on the screen"). */
function dialogFor(screen: string, marker: string): boolean {
  return /Would you like to run the following command\?/.test(screen) && screen.includes(`touch ran-${marker}`);
}
