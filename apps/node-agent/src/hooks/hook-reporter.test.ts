import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEventOut } from '../hub-client/hub-client.ts';
import { HookChannel, permissionHookProgram } from './hook-channel.ts';
import { HookReporter } from './hook-reporter.ts';

// A request reported while the hub was away under the session's old observer generation is
// refused there as stale; after the re-attach the agent tells it again under the new generation
// (chaos seed 21000: without it no prompt row existed, nobody could answer, the queue waited).
function runHook(socket: string, sessionId: string) {
  const child = spawn(process.execPath, [permissionHookProgram, socket, sessionId, '20000', 'claude'], { stdio: ['pipe', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stdin.end(JSON.stringify({ session_id: 'native-r', hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'touch ran-r' } }));
  return new Promise<string>((resolve) => child.on('close', () => resolve(stdout)));
}

describe('hook reporter', () => {
  let root: string;
  let channel: HookChannel;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'bria-reporter-'));
    channel = new HookChannel({ dir: join(root, 'hooks'), boundMs: 20_000, sessionRoot: () => process.pid });
    await channel.open();
  });
  afterEach(async () => {
    await channel.close();
    await rm(root, { recursive: true, force: true });
  });

  it('tells a pending request again under the current generation, with the same id; nothing once it is answered', async () => {
    const events: AgentEventOut[] = [];
    let generation = 1;
    const reporter = new HookReporter({ channel, emit: (e) => events.push(e), generationOf: () => generation, log: () => {} });
    const hook = runHook(channel.socketPath, 's-r');
    const pending = await channel.waitFor((r) => r.sessionId === 's-r' && r.state === 'pending', 10_000);
    const asked = () => events.filter((e) => e.event === 'permission_request');
    expect(asked().map((e) => [e.generation, (e.payload as { requestId: string }).requestId])).toEqual([[1, pending.requestId]]);

    generation = 3;
    expect(reporter.reannounce('s-r')).toBe(1);
    expect(reporter.reannounce('another-session')).toBe(0);
    expect(asked().map((e) => [e.generation, (e.payload as { requestId: string }).requestId])).toEqual([
      [1, pending.requestId],
      [3, pending.requestId],
    ]);
    expect(asked()[1]!.payload).toEqual(asked()[0]!.payload);

    expect(
      reporter.answer({ generation: 3, requestId: pending.requestId, answerId: '00000000-0000-4000-8000-000000000001', decision: 'allow', from: 'dashboard' }),
    ).toMatchObject({ ok: true });
    expect(JSON.parse(await hook)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'allow' } } });
    expect(reporter.reannounce('s-r')).toBe(0);
    expect(asked()).toHaveLength(2);
  });
});
