import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  newRecord,
  type PermissionRecord,
  type PermissionState,
  REQUEST_EVENTS,
  REQUEST_STATES,
  REQUEST_TABLE,
  type RequestEvent,
  RequestLog,
  requestTransition,
} from './request-log.ts';

/** Every (state, event) pair written out on its own: '-' = no move. Any change to a cell of the table fails. */
const EXPECTED: Record<PermissionState, Record<RequestEvent, PermissionState | '-'>> = {
  pending: { answer: 'answered', ack: '-', hook_gone: 'hook_gone', expire: 'expired', lose: 'lost_on_restart' },
  answered: { answer: '-', ack: 'delivered', hook_gone: '-', expire: '-', lose: 'lost_on_restart' },
  delivered: { answer: '-', ack: '-', hook_gone: '-', expire: '-', lose: '-' },
  hook_gone: { answer: '-', ack: '-', hook_gone: '-', expire: '-', lose: '-' },
  expired: { answer: '-', ack: '-', hook_gone: '-', expire: '-', lose: '-' },
  lost_on_restart: { answer: '-', ack: '-', hook_gone: '-', expire: '-', lose: '-' },
};

describe('the request table, every (state, event) pair', () => {
  const pairs = REQUEST_STATES.flatMap((s) => REQUEST_EVENTS.map((e) => ({ s, e, to: EXPECTED[s][e] })));
  it.each(pairs)('$s + $e → $to', ({ s, e, to }) => {
    expect(requestTransition(s, e)).toBe(to === '-' ? null : to);
  });
  it('lists exactly the expected cells', () => {
    for (const s of REQUEST_STATES) expect(REQUEST_TABLE[s]).toEqual(Object.fromEntries(Object.entries(EXPECTED[s]).filter(([, to]) => to !== '-')));
    expect(Object.keys(REQUEST_TABLE).sort()).toEqual([...REQUEST_STATES].sort());
  });
});

describe('RequestLog on a real file', () => {
  let root: string;
  let file: string;
  const record = (over: Partial<PermissionRecord> = {}): PermissionRecord => ({
    requestId: 'r-1',
    sessionId: 's-1',
    nativeSessionId: null,
    toolName: 'Bash',
    toolInput: { command: 'ls' },
    kind: 'tool',
    executor: 'claude',
    justification: null,
    request: {},
    hookPid: 10,
    receivedAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-01T00:30:00.000Z',
    state: 'pending',
    ...over,
  });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'bria-rlog-'));
    file = join(root, 'permissions.jsonl');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes every move before telling, refuses a move the table lacks, and reads the last state back', async () => {
    const log = new RequestLog(file, () => Date.parse('2026-01-01T00:01:00.000Z'));
    const heard: string[] = [];
    log.on((e) => heard.push(`${e.type}:${e.record.state}`));
    const r = record();
    log.add(r);
    log.announce(r);
    expect(log.move(r, 'ack')).toBe(false);
    expect(log.move(r, 'answer', { answer: { behavior: 'allow', at: 'now' } })).toBe(true);
    expect(log.move(r, 'ack', { evidence: 'acknowledged' })).toBe(true);
    expect(log.move(r, 'lose')).toBe(false);
    expect(heard).toEqual(['permission_request:pending', 'permission_changed:answered', 'permission_changed:delivered']);
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as PermissionRecord);
    expect(lines.map((l) => l.state)).toEqual(['pending', 'answered', 'delivered']);
    expect(lines[1]?.endedAt).toBe('2026-01-01T00:01:00.000Z');

    const again = new RequestLog(file);
    again.load();
    expect(again.record('r-1')).toMatchObject({ state: 'delivered', evidence: 'acknowledged', endedAt: '2026-01-01T00:01:00.000Z' });
  });

  it('keeps each input once: later lines carry only the change', async () => {
    const log = new RequestLog(file);
    const secret = `TOKEN=${'s'.repeat(8_000)}… [5000000 more characters]`;
    const r = record({ toolName: 'Write', toolInput: { file_path: '/w/.env', content: secret } });
    log.add(r);
    log.move(r, 'answer', { answer: { behavior: 'allow', at: 'now' } });
    log.move(r, 'ack', { evidence: 'acknowledged' });
    const text = await readFile(file, 'utf8');
    expect(text.split('TOKEN=').length - 1).toBe(1);
    expect(text.trim().split('\n')).toHaveLength(3);
    const again = new RequestLog(file);
    again.load();
    expect(again.record('r-1')).toMatchObject({ state: 'delivered', toolInput: { content: secret }, answer: { behavior: 'allow' } });
  });

  it('compacts past its bound: rewritten atomically with the open requests and the newest ended ones, one line each', async () => {
    const log = new RequestLog(file, Date.now, 64 * 1024);
    const big = 'x'.repeat(6_000);
    const open = record({ requestId: 'open-1', toolInput: { command: big } });
    log.add(open);
    for (let i = 0; i < 150; i++) {
      const r = record({ requestId: `r-${i}`, toolInput: { command: `${i}:${big}` } });
      log.add(r);
      log.move(r, 'expire', { evidence: 'bound' });
    }
    const text = await readFile(file, 'utf8');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64 * 1024 + 7_000);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as PermissionRecord);
    // Each kept request whole once (later lines are changes only).
    const whole = lines.filter((l) => 'toolInput' in l).map((l) => l.requestId);
    expect(new Set(whole).size).toBe(whole.length);
    expect(lines.map((l) => l.requestId)).toContain('open-1');
    expect(lines.at(-1)?.requestId).toBe('r-149');
    expect(log.record('r-0')).toBeUndefined();
    const again = new RequestLog(file);
    again.load();
    expect(again.record('open-1')?.state).toBe('pending');
    expect(again.record('r-149')).toMatchObject({ state: 'expired', evidence: 'bound' });
  });

  it('loads around a torn last line and fills the fields older records lack', async () => {
    const { kind: _k, executor: _e, justification: _j, ...old } = record({ requestId: 'r-old', toolName: 'AskUserQuestion' });
    await writeFile(file, `${JSON.stringify(old)}\n{"requestId":"r-old","state":"answ`);
    const log = new RequestLog(file);
    log.load();
    expect(log.all()).toEqual([{ ...old, kind: 'question', executor: 'claude', justification: null }]);
  });

  it('waitFor resolves with a record already there or with the next match, and times out otherwise', async () => {
    const log = new RequestLog(file);
    const r = record();
    log.add(r);
    await expect(log.waitFor((x) => x.state === 'pending', 100)).resolves.toMatchObject({ requestId: 'r-1' });
    const later = log.waitFor((x) => x.state === 'expired', 1000);
    log.move(r, 'expire', { evidence: 'bound' });
    await expect(later).resolves.toMatchObject({ state: 'expired', evidence: 'bound' });
    await expect(log.waitFor((x) => x.state === 'delivered', 20)).rejects.toThrow(/no matching permission request/);
  });
});

describe("newRecord (a hook's request → its record)", () => {
  const frame = {
    type: 'permission_request' as const,
    sessionId: 's-1',
    hookPid: 42,
    request: { session_id: 'n-1', tool_name: 'Bash', tool_input: { command: 'ls', description: 'list it' } },
  };
  it.each([
    { executor: 'claude' as const, justification: null },
    { executor: 'codex' as const, justification: 'list it' },
  ])("$executor: the justification is Codex's description only", ({ executor, justification }) => {
    const r = newRecord({ ...frame, executor, hookKey: 'k-1' }, { requestId: 'r-9', now: Date.parse('2026-01-01T00:00:00.000Z'), boundMs: 60_000 });
    expect(r).toEqual({
      requestId: 'r-9',
      sessionId: 's-1',
      nativeSessionId: 'n-1',
      toolName: 'Bash',
      toolInput: { command: 'ls', description: 'list it' },
      kind: 'tool',
      executor,
      justification,
      // The input is kept once (toolInput), not again inside the request.
      request: { session_id: 'n-1', tool_name: 'Bash' },
      hookPid: 42,
      hookKey: 'k-1',
      receivedAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T00:01:00.000Z',
      state: 'pending',
    });
  });
  it('a question, without a tool input or a key', () => {
    const r = newRecord(
      { type: 'permission_request', sessionId: 's', executor: 'claude', hookPid: null, request: { tool_name: 'AskUserQuestion' } },
      { requestId: 'r', now: 0, boundMs: 1 },
    );
    expect(r).toMatchObject({ kind: 'question', toolInput: null, nativeSessionId: null, hookPid: null });
    expect('hookKey' in r).toBe(false);
  });
});
