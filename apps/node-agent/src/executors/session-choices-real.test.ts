import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { PERMISSION_MODES } from '@bria/core/protocol';
import { claudeBin, codexBin } from '@bria/testkit/cli-homes';
import { unavailableModes } from '../unavailable-modes.ts';
import { claudeDriver } from './claude-driver.ts';
import { codexDriver } from './codex-driver.ts';
import { SessionHost } from './session-host.ts';
import { createRig, type Rig, sendAndFinish } from '../../test-support/test-rig.ts';

// Every permission mode Bria offers starts the real pinned CLI, with the chosen model, and the CLI
// itself records that mode (Claude's journal, Codex's turn_context); the model is what the mock got.
const rigs: Rig[] = [];
afterAll(async () => {
  for (const r of rigs) await r.dispose();
});

const records = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('each offered mode starts the real CLI', () => {
  it('Claude: default, acceptEdits, plan and bypassPermissions', async () => {
    const rig = await createRig('claude');
    rigs.push(rig);
    // The test homes declare a sandbox (IS_SANDBOX=1), so bypassPermissions is offered and checked too.
    const offered = PERMISSION_MODES.claude.filter((m) => !unavailableModes(rig.env).includes(`claude:${m}`));
    expect(offered).toEqual(['default', 'acceptEdits', 'plan', 'bypassPermissions']);
    for (const [i, mode] of offered.entries()) {
      const host = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env });
      const id = await host.start({ cwd: rig.work, sessionName: `claude-mode-${i}-${Date.now().toString(36)}`, permissionMode: mode, model: 'claude-fable-5' });
      await sendAndFinish(host, `hello in ${mode}`);
      const req = rig.mock.requests.filter((r) => r.kind === 'turn' && r.sessionId === id.nativeId).at(-1);
      expect(req?.model).toBe('claude-fable-5');
      const stated = records(id.journalPath as string)
        .filter((r) => r.type === 'permission-mode')
        .map((r) => r.permissionMode);
      expect(stated.at(-1)).toBe(mode);
      await host.close();
    }
  }, 240_000);

  it('Codex: workspace-write, read-only and full-access', async () => {
    const rig = await createRig('codex');
    rigs.push(rig);
    const want = {
      'workspace-write': ['on-request', 'workspace-write'],
      'read-only': ['on-request', 'read-only'],
      'full-access': ['never', 'danger-full-access'],
    } as const;
    for (const [i, mode] of PERMISSION_MODES.codex.entries()) {
      const host = new SessionHost({ driver: codexDriver, tmux: rig.tmux, bin: codexBin, env: rig.env });
      const id = await host.start({ cwd: rig.work, sessionName: `codex-mode-${i}-${Date.now().toString(36)}`, permissionMode: mode, model: 'mock-model-b' });
      await sendAndFinish(host, `hello in ${mode}`);
      const req = rig.mock.requests.filter((r) => r.kind === 'turn' && r.sessionId === id.nativeId).at(-1);
      expect(req?.model).toBe('mock-model-b');
      const ctx = records(host.identity().journalPath as string)
        .filter((r) => r.type === 'turn_context')
        .at(-1)?.payload as { approval_policy: string; sandbox_policy: { type: string } };
      expect([ctx.approval_policy, ctx.sandbox_policy.type]).toEqual(want[mode]);
      await host.close();
    }
  }, 240_000);
});
