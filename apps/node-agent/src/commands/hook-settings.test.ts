import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HookChannel } from '../hooks/hook-channel.ts';
import { Tmux } from '../tmux/tmux.ts';
import { fakeCliWorkspace } from '@bria/testkit/fake-cli';
import { SessionControl } from './session-control.ts';

// The "CLI" records its arguments and never reaches a prompt: what is checked is the command line
// the agent builds for a start and a resume with a hook channel (the real CLI: ../hooks tests).
const fake = fakeCliWorkspace('hookset');
const { root, bin, argvFile, folder, socket } = fake;
const hooks = new HookChannel({ dir: path.join(root, 'agent', 'hooks'), sessionRoot: () => null });

beforeAll(() => hooks.open());
afterAll(async () => {
  await hooks.close();
  await fake.dispose();
});

function control(withHooks: boolean) {
  return new SessionControl({
    dir: path.join(root, 'agent'),
    tmux: new Tmux({ socketName: socket, runDir: path.join(root, 'tmux') }),
    bins: { claude: bin, codex: bin },
    env: { PATH: process.env.PATH ?? '', HOME: root },
    log: () => undefined,
    emit: () => undefined,
    hostTimeouts: { readyMs: 1_500, exitMs: 1_500 },
    ...(withHooks ? { hooks } : {}),
  });
}

async function argvOf(run: () => Promise<unknown>): Promise<string[]> {
  rmSync(argvFile, { force: true });
  await run();
  return existsSync(argvFile) ? readFileSync(argvFile, 'utf8').trim().split('\n') : [];
}

describe('per-session hook settings on the CLI command line', () => {
  const nativeId = '01a23651-d848-7b63-9a2f-558796e706b7';

  it('Claude start and resume get --settings=<the session file> whose hook reaches the channel', async () => {
    const c = control(true);
    const started = await argvOf(() =>
      c.start('h1-hooks', { generation: 1, executor: 'claude', folder, permissionMode: 'default', nativeSessionId: nativeId }),
    );
    const file = path.join(hooks.dir, 'settings', 'h1-hooks.json');
    expect(started).toEqual(['--session-id', nativeId, '--permission-mode', 'default', `--settings=${file}`]);
    expect(JSON.parse(readFileSync(file, 'utf8')).hooks.PermissionRequest[0].hooks[0].command).toContain(hooks.socketPath);
    const resumed = await argvOf(() => c.resume('h2-hooks', { generation: 1, executor: 'claude', folder, nativeSessionId: nativeId }));
    expect(resumed).toEqual([`--resume=${nativeId}`, '--permission-mode', 'default', `--settings=${path.join(hooks.dir, 'settings', 'h2-hooks.json')}`]);
  }, 60_000);

  it('no channel: the command line is unchanged', async () => {
    const plain = await argvOf(() =>
      control(false).start('h3-hooks', { generation: 1, executor: 'claude', folder, permissionMode: 'default', nativeSessionId: nativeId }),
    );
    expect(plain).toEqual(['--session-id', nativeId, '--permission-mode', 'default']);
    const codex = await argvOf(() => control(false).start('h4-hooks', { generation: 1, executor: 'codex', folder, permissionMode: 'default' }));
    expect(codex).toEqual(['--no-daemon', '-C', folder, '-a', 'on-request', '-s', 'workspace-write']);
  }, 60_000);

  it('Codex start and resume get the -c hook overrides (before the id) whose hook reaches the channel', async () => {
    const c = control(true);
    const started = await argvOf(() => c.start('h5-hooks', { generation: 1, executor: 'codex', folder, permissionMode: 'accept-edits' }));
    const overrides = hooks.codexConfigArgs('h5-hooks');
    expect(started).toEqual(['--no-daemon', '-C', folder, '-a', 'on-request', '-s', 'workspace-write', ...overrides]);
    expect(overrides[1]).toContain(hooks.socketPath);
    const resumed = await argvOf(() => c.resume('h6-hooks', { generation: 1, executor: 'codex', folder, nativeSessionId: nativeId }));
    expect(resumed).toEqual([
      'resume',
      '--no-daemon',
      '-C',
      folder,
      '-a',
      'on-request',
      '-s',
      'workspace-write',
      ...hooks.codexConfigArgs('h6-hooks'),
      '--',
      nativeId,
    ]);
  }, 60_000);
});
