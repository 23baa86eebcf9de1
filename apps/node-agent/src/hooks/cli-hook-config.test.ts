import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { claudeHookSettings, codexHookArgs, codexHookTrustHash, hookCommand, TOOL_GATE_TIMEOUT_S } from './cli-hook-config.ts';

const base = {
  node: '/usr/bin/node',
  program: '/opt/bria/permission-hook.mjs',
  socketPath: '/home/u/.bria/hooks/agent.sock',
  sessionId: 's-1',
  boundMs: 1_800_000,
};

describe('the hook command, per CLI', () => {
  it.each([
    {
      executor: 'claude',
      boundMs: 1_800_000,
      command: "'/usr/bin/node' '/opt/bria/permission-hook.mjs' '/home/u/.bria/hooks/agent.sock' 's-1' '1800000' 'claude'",
      timeout: 1830,
    },
    {
      executor: 'codex',
      boundMs: 6_000,
      command: "'/usr/bin/node' '/opt/bria/permission-hook.mjs' '/home/u/.bria/hooks/agent.sock' 's-1' '6000' 'codex'",
      timeout: 36,
    },
    {
      executor: 'claude',
      boundMs: 1_500,
      command: "'/usr/bin/node' '/opt/bria/permission-hook.mjs' '/home/u/.bria/hooks/agent.sock' 's-1' '1500' 'claude'",
      timeout: 32,
    },
  ] as const)('$executor, bound $boundMs ms → timeout $timeout s', ({ executor, boundMs, command, timeout }) => {
    expect(hookCommand({ ...base, boundMs, executor })).toEqual({ command, timeout });
  });

  it('quotes a path with a quote in it for the shell', () => {
    expect(hookCommand({ ...base, program: "/o'dd/hook.mjs", executor: 'claude' }).command).toContain(`'/o'\\''dd/hook.mjs'`);
  });

  it.each(['', '../x', 's 1', 'a;b', 'x'.repeat(101)])('refuses the session id %j', (sessionId) => {
    expect(() => hookCommand({ ...base, sessionId, executor: 'claude' })).toThrow(/unsafe session id/);
  });
});

describe('Claude: the --settings file', () => {
  it("has the PermissionRequest hook with the bound's timeout and the PreToolUse gate with its own", () => {
    expect(claudeHookSettings({ command: 'CMD', timeout: 1830 })).toEqual({
      hooks: {
        PermissionRequest: [{ matcher: '*', hooks: [{ type: 'command', command: 'CMD', timeout: 1830 }] }],
        PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'CMD', timeout: TOOL_GATE_TIMEOUT_S }] }],
      },
    });
  });
});

describe('Codex: the -c overrides', () => {
  it('carry the hook and its trust entry for the session-flags layer', () => {
    const hash = codexHookTrustHash('permission_request', 'CMD "x"', 1830);
    expect(codexHookArgs({ command: 'CMD "x"', timeout: 1830 })).toEqual([
      '-c',
      'hooks.PermissionRequest=[{hooks=[{type="command",command="CMD \\"x\\"",timeout=1830}]}]',
      '-c',
      `hooks.state={"/<session-flags>/config.toml:permission_request:0:0"={trusted_hash="${hash}"}}`,
    ]);
  });

  it('hashes the canonical JSON (sorted keys) of the event and the handler with its defaults', () => {
    const canonical = '{"event_name":"permission_request","hooks":[{"async":false,"command":"CMD","timeout":36,"type":"command"}]}';
    expect(codexHookTrustHash('permission_request', 'CMD', 36)).toBe(`sha256:${createHash('sha256').update(canonical).digest('hex')}`);
    expect(codexHookTrustHash('permission_request', 'CMD', 37)).not.toBe(codexHookTrustHash('permission_request', 'CMD', 36));
  });
});
