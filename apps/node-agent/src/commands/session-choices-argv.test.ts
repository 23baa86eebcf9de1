import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Tmux } from '../tmux/tmux.ts';
import { fakeCliWorkspace } from '@bria/testkit/fake-cli';
import { SessionControl } from './session-control.ts';

// The "CLI" records its arguments and never reaches a prompt: what is checked is the command line
// the agent builds from a start or resume command's permission mode and model (real CLIs:
// ../executors/session-choices-real.test.ts).
const fake = fakeCliWorkspace('choices');
const { root, bin, argvFile, folder, socket } = fake;

afterAll(async () => {
  await fake.dispose();
});

const control = new SessionControl({
  dir: path.join(root, 'agent'),
  tmux: new Tmux({ socketName: socket, runDir: path.join(root, 'tmux') }),
  bins: { claude: bin, codex: bin },
  env: { PATH: process.env.PATH ?? '', HOME: root },
  log: () => undefined,
  emit: () => undefined,
  hostTimeouts: { readyMs: 1_500, exitMs: 1_500 },
});

let n = 0;
async function argvOf(run: (sessionId: string) => Promise<unknown>): Promise<string[]> {
  rmSync(argvFile, { force: true });
  // The tmux session is named after the id's first 8 characters.
  await run(`c${String(++n).padStart(7, '0')}-choices`);
  return existsSync(argvFile) ? readFileSync(argvFile, 'utf8').trim().split('\n') : [];
}

const nativeId = '5b0c7d1e-2f3a-4b5c-8d6e-7f8091a2b3c4';
const codexId = '01a23651-d848-7b63-9a2f-558796e706b7';

describe('permission mode and model on the CLI command line', () => {
  it('Claude: --permission-mode always stated, --model when chosen, on start and resume', async () => {
    const cases: [string, string | undefined, string[]][] = [
      ['default', undefined, ['--permission-mode', 'default']],
      ['acceptEdits', 'opus', ['--permission-mode', 'acceptEdits', '--model', 'opus']],
      ['plan', 'claude-opus-4-8[1m]', ['--permission-mode', 'plan', '--model', 'claude-opus-4-8[1m]']],
      ['bypassPermissions', undefined, ['--permission-mode', 'bypassPermissions']],
      // Values stored before the closed lists.
      ['accept-edits', undefined, ['--permission-mode', 'acceptEdits']],
      ['full-access', undefined, ['--permission-mode', 'bypassPermissions']],
    ];
    for (const [permissionMode, model, args] of cases) {
      const m = model ? { model } : {};
      expect(await argvOf((id) => control.start(id, { generation: 1, executor: 'claude', folder, permissionMode, nativeSessionId: nativeId, ...m }))).toEqual([
        '--session-id',
        nativeId,
        ...args,
      ]);
      expect(await argvOf((id) => control.resume(id, { generation: 1, executor: 'claude', folder, permissionMode, nativeSessionId: nativeId, ...m }))).toEqual([
        `--resume=${nativeId}`,
        ...args,
      ]);
    }
  }, 120_000);

  it('Codex: approval policy and sandbox always stated, -m when chosen, on start and resume', async () => {
    const cases: [string, string | undefined, string[]][] = [
      ['workspace-write', undefined, ['-a', 'on-request', '-s', 'workspace-write']],
      ['read-only', 'gpt-6.2-sol', ['-a', 'on-request', '-s', 'read-only', '-m', 'gpt-6.2-sol']],
      ['full-access', 'mock-model', ['-a', 'never', '-s', 'danger-full-access', '-m', 'mock-model']],
      ['default', undefined, ['-a', 'on-request', '-s', 'workspace-write']],
      ['accept-edits', undefined, ['-a', 'on-request', '-s', 'workspace-write']],
    ];
    for (const [permissionMode, model, args] of cases) {
      const m = model ? { model } : {};
      expect(await argvOf((id) => control.start(id, { generation: 1, executor: 'codex', folder, permissionMode, ...m }))).toEqual([
        '--no-daemon',
        '-C',
        folder,
        ...args,
      ]);
      expect(await argvOf((id) => control.resume(id, { generation: 1, executor: 'codex', folder, permissionMode, nativeSessionId: codexId, ...m }))).toEqual([
        'resume',
        '--no-daemon',
        '-C',
        folder,
        ...args,
        '--',
        codexId,
      ]);
    }
  }, 120_000);
});
