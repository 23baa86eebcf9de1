import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { permissionHookProgram } from './hook-channel.ts';
import {
  type AgentToHookFrame,
  HOOK_REQUEST_BUDGET,
  hookLine,
  type HookToAgentFrame,
  LineSplitter,
  parseHookLine,
  zAgentToHookFrame,
  zHookToAgentFrame,
} from './hook-wire.ts';

/** A bare socket server standing in for the agent: every line the real hook program sends goes through `parseHookLine`. */
function fakeAgent(path: string, reply: (f: HookToAgentFrame, s: Socket) => void) {
  const frames: HookToAgentFrame[] = [];
  const server: Server = createServer((s) => {
    let buf = '';
    s.setEncoding('utf8').on('data', (c: string) => {
      buf += c;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const parsed = parseHookLine(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (!parsed.ok) throw new Error(`the real hook sent a line the wire refuses: ${parsed.reason}`);
        frames.push(parsed.frame);
        reply(parsed.frame, s);
      }
    });
    s.on('error', () => s.destroy());
  });
  return { frames, ready: new Promise<void>((r) => server.listen(path, () => r())), close: () => new Promise<void>((r) => server.close(() => r())) };
}

function runHook(socket: string, stdin: unknown, executor: 'claude' | 'codex' = 'claude') {
  const child = spawn(process.execPath, [permissionHookProgram, socket, 's-wire', '20000', executor], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stdin.end(JSON.stringify(stdin));
  return new Promise<{ code: number | null; stdout: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

const REQUEST = { session_id: 'native-1', hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'ls' } };

describe('the hook socket wire, against the real hook program', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'bria-wire-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('permission_request → answer → delivered: every frame of both ends fits the union', async () => {
    const sock = join(root, 'a.sock');
    const output = { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } };
    const agent = fakeAgent(sock, (f, s) => {
      if (f.type === 'permission_request') s.write(hookLine({ type: 'answer', requestId: 'r-1', output }));
    });
    await agent.ready;
    const { code, stdout } = await runHook(sock, REQUEST, 'codex');
    await agent.close();
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(output);
    const [asked, delivered] = agent.frames;
    expect(asked).toMatchObject({ type: 'permission_request', sessionId: 's-wire', executor: 'codex', request: REQUEST });
    expect(typeof (asked as { hookPid: unknown }).hookPid).toBe('number');
    expect((asked as { hookKey?: string }).hookKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(delivered).toEqual({ type: 'delivered', requestId: 'r-1' });
    expect(agent.frames).toHaveLength(2);
  });

  it('an end frame: the hook prints nothing', async () => {
    const sock = join(root, 'b.sock');
    const agent = fakeAgent(sock, (f, s) => {
      if (f.type === 'permission_request') s.end(hookLine({ type: 'end', requestId: 'r-2', state: 'released' }));
    });
    await agent.ready;
    const { code, stdout } = await runHook(sock, REQUEST);
    await agent.close();
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
    expect(agent.frames.map((f) => (typeof f === 'object' ? f.type : f))).toEqual(['permission_request']);
  });

  it('PreToolUse: tool_start, then go ends the hook without output', async () => {
    const sock = join(root, 'c.sock');
    const agent = fakeAgent(sock, (f, s) => {
      if (f.type === 'tool_start') s.end(hookLine({ type: 'go' }));
    });
    await agent.ready;
    const { code, stdout } = await runHook(sock, { hook_event_name: 'PreToolUse', tool_use_id: 'toolu_9', tool_name: 'Bash' });
    await agent.close();
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
    expect(agent.frames).toEqual([{ type: 'tool_start', sessionId: 's-wire', toolUseId: 'toolu_9', hookPid: expect.any(Number) }]);
  });
});

describe('the hook program against refusals and bounds', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'bria-wire-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('a refused frame: the hook prints nothing and does not try again (one connection)', async () => {
    const sock = join(root, 'd.sock');
    const agent = fakeAgent(sock, (f, s) => {
      if (f.type === 'permission_request') s.end(hookLine({ type: 'refused', reason: 'peer_outside_session' }));
    });
    await agent.ready;
    const { code, stdout } = await runHook(sock, REQUEST);
    await agent.close();
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
    expect(agent.frames.map((f) => f.type)).toEqual(['permission_request']);
  });

  it('a 5 MB Write: the hook sends a clipped excerpt within its budget, never the whole file', async () => {
    const sock = join(root, 'e.sock');
    const lines: number[] = [];
    const agent = fakeAgent(sock, (f, s) => {
      lines.push(Buffer.byteLength(JSON.stringify(f)));
      if (f.type === 'permission_request') s.end(hookLine({ type: 'end', requestId: 'r', state: 'expired' }));
    });
    await agent.ready;
    const secret = `API_KEY=${'x'.repeat(5 * 1024 * 1024)}`;
    await runHook(sock, { ...REQUEST, tool_name: 'Write', tool_input: { file_path: '/w/.env', content: secret } });
    await agent.close();
    const [asked] = agent.frames;
    if (asked?.type !== 'permission_request') throw new Error('no request reached the agent');
    const content = String((asked.request.tool_input as { content?: unknown }).content);
    expect(content.startsWith('API_KEY=xxx')).toBe(true);
    expect(content).toMatch(/… \[\d+ more characters\]$/);
    expect(content.length).toBeLessThan(8_100);
    expect(lines[0]).toBeLessThanOrEqual(HOOK_REQUEST_BUDGET + 1024);
  });
});

describe('parseHookLine', () => {
  it.each([
    { line: 'not json', out: { ok: false, reason: 'not_json' } },
    { line: '{"type":"hello"}', out: { ok: false, reason: 'unknown_frame' } },
    { line: 'null', out: { ok: false, reason: 'unknown_frame' } },
    { line: '[1]', out: { ok: false, reason: 'unknown_frame' } },
    { line: '{"type":"permission_request","request":{}}', out: { ok: false, reason: 'bad_frame' } },
    { line: '{"type":"permission_request","sessionId":"","request":{}}', out: { ok: false, reason: 'bad_frame' } },
    { line: '{"type":"permission_request","sessionId":"../x","request":{}}', out: { ok: false, reason: 'bad_frame' } },
    { line: `{"type":"permission_request","sessionId":"${'s'.repeat(101)}","request":{}}`, out: { ok: false, reason: 'bad_frame' } },
    { line: '{"type":"permission_request","sessionId":"s","request":[1]}', out: { ok: false, reason: 'bad_frame' } },
    { line: '{"type":"tool_start"}', out: { ok: false, reason: 'bad_frame' } },
    { line: '{"type":"delivered"}', out: { ok: true, frame: { type: 'delivered' } } },
    // Lenient where the channel always was: an unknown executor is Claude, a bad pid none, an unsafe key unused.
    {
      line: '{"type":"permission_request","sessionId":"s","request":{},"executor":"vim","hookPid":"x","hookKey":"a b"}',
      out: { ok: true, frame: { type: 'permission_request', sessionId: 's', request: {}, executor: 'claude', hookPid: null } },
    },
    {
      line: '{"type":"tool_start","sessionId":"s","toolUseId":7,"hookPid":5}',
      out: { ok: true, frame: { type: 'tool_start', sessionId: 's', toolUseId: null, hookPid: 5 } },
    },
  ])('$line', ({ line, out }) => {
    expect(parseHookLine(line)).toEqual(out);
  });

  it('LineSplitter: lines across chunks, and never more than the cap held', () => {
    const s = new LineSplitter(10);
    expect(s.push(Buffer.from('ab'))).toEqual([]);
    expect(s.push(Buffer.from('c\nde\nf'))).toEqual(['abc', 'de']);
    expect(s.heldBytes).toBe(1);
    expect(s.push(Buffer.from('ghijklmnop'))).toBe('too_long');
    expect(s.heldBytes).toBe(0);
    const t = new LineSplitter(4);
    expect(t.push(Buffer.from('abcde\n'))).toBe('too_long');
    expect(new LineSplitter(4).push(Buffer.from('abcd\n'))).toEqual(['abcd']);
    // UTF-8 split across chunks stays whole.
    const u = new LineSplitter(100);
    const bytes = Buffer.from('жж\n');
    expect(u.push(bytes.subarray(0, 3))).toEqual([]);
    expect(u.push(bytes.subarray(3))).toEqual(['жж']);
  });

  it('agent frames are one per line and parse back', () => {
    const frames: AgentToHookFrame[] = [
      { type: 'go' },
      { type: 'end', requestId: 'r', state: 'hook_gone' },
      { type: 'answer', requestId: 'r', output: { a: 1 } },
      { type: 'refused', reason: 'peer_outside_session' },
    ];
    for (const f of frames) {
      const line = hookLine(f);
      expect(line.endsWith('\n') && !line.slice(0, -1).includes('\n')).toBe(true);
      expect(zAgentToHookFrame.parse(JSON.parse(line))).toEqual(f);
    }
    expect(zHookToAgentFrame.safeParse({ type: 'go' }).success).toBe(false);
  });
});
