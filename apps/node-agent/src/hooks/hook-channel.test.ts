import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookChannel, permissionHookProgram } from './hook-channel.ts';

const INPUT = {
  session_id: 'native-1',
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch ran-x', description: 'Touch ran-x' },
};

/** Runs the hook program exactly as the settings file makes Claude run it. */
function runHook(socket: string, sessionId: string, boundMs: number, stdin: unknown = INPUT) {
  const child = spawn(process.execPath, [permissionHookProgram, socket, sessionId, String(boundMs)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stdin.end(JSON.stringify(stdin));
  return new Promise<{ code: number | null; stdout: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

describe('hook channel with the real hook program', () => {
  let root: string;
  let channel: HookChannel;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'bria-hooks-'));
    channel = new HookChannel({ dir: join(root, 'hooks'), boundMs: 20_000 });
    await channel.open();
  });
  afterEach(async () => {
    await channel.close();
    await rm(root, { recursive: true, force: true });
  });

  it('keeps the socket private, records the request durably and hands the allow answer to the hook once', async () => {
    expect((await stat(channel.socketPath)).mode & 0o777).toBe(0o600);
    expect((await stat(channel.dir)).mode & 0o777).toBe(0o700);
    const hook = runHook(channel.socketPath, 's-1', 20_000);
    const pending = await channel.waitFor((r) => r.state === 'pending', 10_000);
    expect(pending).toMatchObject({ sessionId: 's-1', nativeSessionId: 'native-1', toolName: 'Bash', toolInput: INPUT.tool_input });
    expect(channel.pending().map((r) => r.requestId)).toEqual([pending.requestId]);
    const logged = (await readFile(join(channel.dir, 'permissions.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(logged[0]).toMatchObject({ requestId: pending.requestId, state: 'pending' });

    expect(channel.answer(pending.requestId, { behavior: 'allow' }).ok).toBe(true);
    expect(channel.answer(pending.requestId, { behavior: 'deny' })).toMatchObject({ ok: false, reason: 'not_pending' });
    const { code, stdout } = await hook;
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    await channel.waitFor((r) => r.requestId === pending.requestId && r.state === 'delivered', 5000);
    expect(channel.pending()).toEqual([]);
    expect(channel.answer('nope', { behavior: 'allow' })).toEqual({ ok: false, reason: 'unknown_request' });
  });

  it('prints a deny with the user message', async () => {
    const hook = runHook(channel.socketPath, 's-2', 20_000);
    const pending = await channel.waitFor((r) => r.state === 'pending', 10_000);
    channel.answer(pending.requestId, { behavior: 'deny', message: 'not now, from the phone' });
    const { stdout } = await hook;
    expect(JSON.parse(stdout).hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: 'not now, from the phone' });
  });

  it('prints nothing (the CLI keeps its own dialog) when the agent is unreachable or the bound passes', async () => {
    const gone = await runHook(join(root, 'no-such.sock'), 's-3', 20_000);
    expect(gone).toEqual({ code: 0, stdout: '' });

    const short = new HookChannel({ dir: join(root, 'short'), boundMs: 700 });
    await short.open();
    try {
      const { code, stdout } = await runHook(short.socketPath, 's-4', 700);
      expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
      const r = await short.waitFor((x) => x.state !== 'pending', 5000);
      expect(r.state).toBe('expired');
      expect(short.answer(r.requestId, { behavior: 'allow' })).toMatchObject({ ok: false, reason: 'not_pending' });
    } finally {
      await short.close();
    }
  });

  it('an agent restart while a request is pending marks it lost with evidence, never drops it', async () => {
    const hook = runHook(channel.socketPath, 's-5', 20_000);
    const pending = await channel.waitFor((r) => r.state === 'pending', 10_000);
    await channel.close();
    expect(await hook).toEqual({ code: 0, stdout: '' });
    channel = new HookChannel({ dir: channel.dir, boundMs: 20_000 });
    await channel.open();
    expect(channel.get(pending.requestId)).toMatchObject({ state: 'lost_on_restart', toolName: 'Bash' });
    expect(channel.pending()).toEqual([]);
  });

  it('writes a per-session settings file whose PermissionRequest hook runs this program', async () => {
    const file = channel.settingsFor('s-6');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const settings = JSON.parse(await readFile(file, 'utf8'));
    const hook = settings.hooks.PermissionRequest[0].hooks[0];
    expect(hook.type).toBe('command');
    expect(hook.command).toContain(permissionHookProgram);
    expect(hook.command).toContain(channel.socketPath);
    expect(hook.timeout).toBeGreaterThan(20);
    expect(() => channel.settingsFor('../evil')).toThrow(/unsafe/);
  });
});
