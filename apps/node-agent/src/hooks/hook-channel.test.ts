import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from '@bria/testkit/wait';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexHookTrustHash } from './cli-hook-config.ts';
import { alwaysAllowRule } from './hook-answers.ts';
import { HookChannel, permissionHookProgram } from './hook-channel.ts';

/** Every session id is live here, its tree this test process (the hooks are its children). */
const ownTree = () => process.pid;

const INPUT = {
  session_id: 'native-1',
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch ran-x', description: 'Touch ran-x' },
};

/** Runs the hook program exactly as the settings file makes Claude run it (or Codex's `-c` hook). */
function runHook(socket: string, sessionId: string, boundMs: number, stdin: unknown = INPUT, executor?: 'claude' | 'codex') {
  const argv = [permissionHookProgram, socket, sessionId, String(boundMs), ...(executor ? [executor] : [])];
  const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
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
    channel = new HookChannel({ dir: join(root, 'hooks'), boundMs: 20_000, sessionRoot: ownTree });
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
    const logged = (await readFile(join(channel.dir, 'permissions.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
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
    // An agent not reachable is tried again (it may be restarting) until the bound, then given up.
    const gone = await runHook(join(root, 'no-such.sock'), 's-3', 1_500);
    expect(gone).toEqual({ code: 0, stdout: '' });

    const short = new HookChannel({ dir: join(root, 'short'), boundMs: 700, sessionRoot: ownTree });
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

  it('an agent restart while a request is pending: the waiting hook reconnects to the new agent, same request, and gets its answer', async () => {
    const hook = runHook(channel.socketPath, 's-5', 20_000);
    const pending = await channel.waitFor((r) => r.state === 'pending', 10_000);
    await channel.close();
    const events: string[] = [];
    channel = new HookChannel({ dir: channel.dir, boundMs: 20_000, reattachMs: 10_000, sessionRoot: ownTree });
    channel.on((e) => events.push(`${e.type}:${e.record.state}`));
    await channel.open();
    // The hook is back on the new socket: the request is still the same one, still pending.
    await waitUntil('the answer taken by the reconnected hook', async () => channel.answer(pending.requestId, { behavior: 'allow' }).ok, 10_000, 50);
    const { code, stdout } = await hook;
    expect(code).toBe(0);
    expect(JSON.parse(stdout).hookSpecificOutput.decision).toEqual({ behavior: 'allow' });
    await channel.waitFor((r) => r.requestId === pending.requestId && r.state === 'delivered', 5000);
    expect(events).not.toContain('permission_request:pending');
    expect(events).not.toContain('permission_changed:lost_on_restart');
  });

  it('an answer given while the hook has not reconnected yet reaches it when it does', async () => {
    const hook = runHook(channel.socketPath, 's-7', 20_000);
    const pending = await channel.waitFor((r) => r.state === 'pending', 10_000);
    const dir = channel.dir;
    await channel.close();
    // The new agent's channel knows the request before anything listens: answered, held for the hook.
    channel = new HookChannel({ dir, boundMs: 20_000, reattachMs: 10_000, sessionRoot: ownTree });
    await channel.open();
    channel.answer(pending.requestId, { behavior: 'deny', message: 'held for the hook' });
    const { stdout } = await hook;
    expect(JSON.parse(stdout).hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: 'held for the hook' });
  });

  it.each([
    ['runs the hook itself', (hook: string) => [process.execPath, hook]],
    ['runs it through a shell', (hook: string) => ['/bin/sh', '-c', `${JSON.stringify(process.execPath)} ${JSON.stringify(hook)} "$@"; true`, 'sh']],
  ])(
    'the CLI that asked is SIGKILLed while its hook waits (it %s): the hook ends, the request is over (hook_gone), nothing holds the session',
    async (_, command) => {
      const input = join(root, 'input.json');
      await writeFile(input, JSON.stringify(INPUT));
      // A stand-in for the CLI: it starts the hook with the request on stdin and waits.
      const [bin, ...pre] = command(permissionHookProgram);
      const cliScript = `const { spawn } = require('node:child_process'); const fs = require('node:fs');
      spawn(${JSON.stringify(bin)}, ${JSON.stringify([...pre])}.concat(process.argv.slice(1)), { stdio: [fs.openSync(${JSON.stringify(input)}, 'r'), 'ignore', 'ignore'] });
      setInterval(() => {}, 1000);`;
      const cli = spawn(process.execPath, ['-e', cliScript, channel.socketPath, 's-cli', '20000'], { stdio: 'ignore' });
      const p = await channel.waitFor((r) => r.sessionId === 's-cli' && r.state === 'pending', 10_000);
      cli.kill('SIGKILL');
      const r = await channel.waitFor((x) => x.requestId === p.requestId && x.state !== 'pending', 5000);
      expect(r.state).toBe('hook_gone');
      expect(channel.pending('s-cli')).toEqual([]);
    },
  );

  it('a request whose hook does not come back after a restart is marked lost with evidence, never dropped', async () => {
    const hook = runHook(channel.socketPath, 's-8', 20_000);
    const p = await channel.waitFor((r) => r.state === 'pending', 10_000);
    const dir = channel.dir;
    await channel.close();
    // While the agent is away the CLI ends its hook (or the hook dies): nobody will reconnect.
    process.kill(p.hookPid!, 'SIGKILL');
    await hook;
    channel = new HookChannel({ dir, boundMs: 20_000, reattachMs: 300, sessionRoot: ownTree });
    await channel.open();
    const r = await channel.waitFor((x) => x.requestId === p.requestId && x.state !== 'pending', 5000);
    expect(r).toMatchObject({ state: 'lost_on_restart', toolName: 'Bash' });
    expect(r.evidence).toMatch(/did not reconnect/);
    expect(channel.pending()).toEqual([]);
  });

  it('a 5 MB .env Write through the real hook: permissions.jsonl holds one clipped excerpt, once', async () => {
    const secret = `SECRET_TOKEN=${'k'.repeat(5 * 1024 * 1024)}`;
    const hook = runHook(channel.socketPath, 's-env', 20_000, { ...INPUT, tool_name: 'Write', tool_input: { file_path: '/w/.env', content: secret } });
    const pending = await channel.waitFor((r) => r.sessionId === 's-env', 10_000);
    expect(channel.answer(pending.requestId, { behavior: 'allow' }).ok).toBe(true);
    await hook;
    await channel.waitFor((r) => r.requestId === pending.requestId && r.state === 'delivered', 10_000);
    const text = await readFile(join(channel.dir, 'permissions.jsonl'), 'utf8');
    expect(text.split('SECRET_TOKEN=').length - 1).toBe(1);
    expect(Buffer.byteLength(text)).toBeLessThan(12_000);
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

  it('always-allow adds a session rule: exactly the Bash command, nothing for other tools', async () => {
    const hook = runHook(channel.socketPath, 's-7', 20_000, { ...INPUT, tool_input: { command: 'npm test -- --watch', description: 'Run the tests' } });
    const pending = await channel.waitFor((r) => r.sessionId === 's-7', 10_000);
    expect(pending).toMatchObject({ kind: 'tool', executor: 'claude', justification: null });
    expect(channel.answer(pending.requestId, { behavior: 'deny', alwaysAllow: true })).toMatchObject({ ok: false, reason: 'unsupported' });
    expect(channel.answer(pending.requestId, { behavior: 'allow', answers: { q: 'a' } })).toMatchObject({ ok: false, reason: 'unsupported' });
    expect(channel.answer(pending.requestId, { behavior: 'allow', alwaysAllow: true }).ok).toBe(true);
    expect(JSON.parse((await hook).stdout).hookSpecificOutput.decision).toEqual({
      behavior: 'allow',
      updatedPermissions: [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test -- --watch' }], behavior: 'allow', destination: 'session' }],
    });
    expect(channel.get(pending.requestId)?.answer).toMatchObject({ behavior: 'allow', alwaysAllow: true });
    const claude = { executor: 'claude', kind: 'tool' } as const;
    expect(alwaysAllowRule({ ...claude, toolName: 'Write', toolInput: { file_path: 'a.txt', content: 'x' } })).toBe('tool_not_offered');
    expect(alwaysAllowRule({ ...claude, toolName: 'Bash', toolInput: { command: '' } })).toBe('no_command');
  });

  it("a question (AskUserQuestion) is answered with the request's own questions and the answers, multi-select labels joined", async () => {
    const questions = [
      {
        question: 'Which color?',
        header: 'Color',
        multiSelect: false,
        options: [
          { label: 'Red', description: '' },
          { label: 'Blue', description: '' },
        ],
      },
      {
        question: 'Which toppings?',
        header: 'Top',
        multiSelect: true,
        options: [
          { label: 'Cheese', description: '' },
          { label: 'Ham', description: '' },
        ],
      },
    ];
    const hook = runHook(channel.socketPath, 's-8', 20_000, { ...INPUT, tool_name: 'AskUserQuestion', tool_input: { questions } });
    const pending = await channel.waitFor((r) => r.sessionId === 's-8', 10_000);
    expect(pending).toMatchObject({ kind: 'question', executor: 'claude', toolName: 'AskUserQuestion' });
    expect(channel.answer(pending.requestId, { behavior: 'allow', alwaysAllow: true })).toMatchObject({ ok: false, reason: 'unsupported' });
    expect(channel.answer(pending.requestId, { behavior: 'allow', answers: { 'Which color?': 'Blue', 'Which toppings?': ['Cheese', 'Ham'] } }).ok).toBe(true);
    expect(JSON.parse((await hook).stdout).hookSpecificOutput.decision).toEqual({
      behavior: 'allow',
      updatedInput: { questions, answers: { 'Which color?': 'Blue', 'Which toppings?': 'Cheese, Ham' } },
    });
  });

  it('a Codex request carries its executor and the justification; always-allow is refused for it', async () => {
    const input = {
      session_id: 'codex-1',
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'touch ran-c', description: 'needs to write outside' },
    };
    const hook = runHook(channel.socketPath, 's-9', 20_000, input, 'codex');
    const pending = await channel.waitFor((r) => r.sessionId === 's-9', 10_000);
    expect(pending).toMatchObject({ kind: 'tool', executor: 'codex', justification: 'needs to write outside', nativeSessionId: 'codex-1' });
    expect(channel.answer(pending.requestId, { behavior: 'allow', alwaysAllow: true })).toMatchObject({ ok: false, reason: 'unsupported', detail: /codex/ });
    expect(channel.answer(pending.requestId, { behavior: 'allow' }).ok).toBe(true);
    expect(JSON.parse((await hook).stdout).hookSpecificOutput.decision).toEqual({ behavior: 'allow' });
  });

  it('Codex: -c overrides carry the hook (executor codex) and its trust entry keyed and hashed as Codex does', () => {
    const args = channel.codexConfigArgs('s-10');
    expect(args.filter((a) => a === '-c')).toHaveLength(2);
    const hooks = args[1]!;
    const command = JSON.parse(/command=("(?:[^"\\]|\\.)*")/.exec(hooks)![1]!) as string;
    expect(command).toContain(permissionHookProgram);
    expect(command.endsWith(" 's-10' '20000' 'codex'")).toBe(true);
    expect(hooks).toMatch(/^hooks\.PermissionRequest=\[\{hooks=\[\{type="command",command=".*",timeout=50\}\]\}\]$/);
    expect(args[3]).toBe(
      `hooks.state={"/<session-flags>/config.toml:permission_request:0:0"={trusted_hash="${codexHookTrustHash('permission_request', command, 50)}"}}`,
    );
    // The hash Codex 0.171 itself wrote into hooks.state when a user trusted this `-c` hook in its
    // /hooks screen (UserPromptSubmit, command `cat >> /tmp/cx/hook.log`, default timeout 600).
    expect(codexHookTrustHash('user_prompt_submit', 'cat >> /tmp/cx/hook.log', 600)).toBe(
      'sha256:abf51560d1fff6e2c57b8a415f576b615a8d8593af8bc275cf11372f76f3b2f7',
    );
  });

  it('PreToolUse: the hook goes on at once and the tool call holds typing until its result; while a message is typed, tool calls wait for it', async () => {
    const pre = { session_id: 'native-1', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' };
    // Nothing is typed: the hook prints nothing and exits, and the call is open.
    expect(await runHook(channel.socketPath, 's-gate', 20_000, pre)).toEqual({ code: 0, stdout: '' });
    expect(channel.openToolCount('s-gate')).toBe(1);
    expect(channel.beginTyping('s-gate')).toMatch(/tool call is in progress/);
    channel.toolEnded('s-gate', 'toolu_1');
    expect(channel.beginTyping('s-gate')).toBeNull();
    expect(channel.beginTyping('s-gate')).toMatch(/another message/);

    // Typing: the next tool call's hook waits until the typing ends.
    let exited = false;
    const second = runHook(channel.socketPath, 's-gate', 20_000, { ...pre, tool_use_id: 'toolu_2' }).then((r) => {
      exited = true;
      return r;
    });
    await waitUntil('the second call registered', async () => channel.openToolCount('s-gate') === 1, 10_000);
    expect(exited).toBe(false);
    channel.endTyping('s-gate');
    expect(await second).toEqual({ code: 0, stdout: '' });
    // A turn end closes every open call of the session.
    channel.turnEnded('s-gate');
    expect(channel.openToolCount('s-gate')).toBe(0);
    expect(channel.beginTyping('s-gate')).toBeNull();
    channel.endTyping('s-gate');
  });

  it('a pending request settled at the computer ends as hook_gone and its hook prints nothing; typing waits while it is pending', async () => {
    const hook = runHook(channel.socketPath, 's-settle', 20_000);
    const pending = await channel.waitFor((r) => r.sessionId === 's-settle' && r.state === 'pending', 10_000);
    expect(channel.beginTyping('s-settle')).toMatch(/permission request/);
    expect(channel.settleAtComputer(pending.requestId, 'answered at the computer (test)')).toBe(true);
    expect(await hook).toEqual({ code: 0, stdout: '' });
    expect(channel.get(pending.requestId)).toMatchObject({ state: 'hook_gone', evidence: 'answered at the computer (test)' });
    expect(channel.settleAtComputer(pending.requestId, 'again')).toBe(false);
    expect(channel.beginTyping('s-settle')).toBeNull();
    channel.endTyping('s-settle');
  });
});
