import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { OPTIONAL_COMMANDS, parseAgentToHub, parseHubToAgent, parseSessionCommand, unknownCommand, zCommandType, zReadJournalResult } from './index.ts';

describe('read_journal protocol', () => {
  it('is a command type with a validated payload', () => {
    expect(zCommandType.safeParse('read_journal').success).toBe(true);
    expect(parseSessionCommand('read_journal', { executor: 'claude', nativeSessionId: 'abc', limit: 20 }).ok).toBe(true);
    expect(parseSessionCommand('read_journal', { executor: 'claude', nativeSessionId: 'abc', limit: 1000 }).ok).toBe(false);
    expect(parseSessionCommand('read_journal', { executor: 'gemini', nativeSessionId: 'abc' }).ok).toBe(false);
  });
  it('parses answers of both kinds', () => {
    const ok = zReadJournalResult.safeParse({
      ok: true,
      source: 'native',
      journalPath: '/j',
      totalTurns: 1,
      offset: 0,
      turns: [{ index: 0, nativeRef: 'u', prompt: 'hi', state: 'completed', final: '**x**' }],
    });
    expect(ok.success).toBe(true);
    expect(zReadJournalResult.safeParse({ ok: false, code: 'not_found', error: 'no journal' }).success).toBe(true);
    expect(zReadJournalResult.safeParse({ ok: true, source: 'screen', journalPath: '/j', totalTurns: 0, offset: 0, turns: [] }).success).toBe(false);
  });
  it('is an optional command: hello may list it, and a hello without capabilities is still valid', () => {
    expect(OPTIONAL_COMMANDS).toContain('read_journal');
    const hello = { type: 'hello', protocol: 1, agentVersion: '0.1.0', instanceId: 'i', hostname: 'h', executors: [], lastEventSeq: 0 };
    const old = parseAgentToHub(JSON.stringify(hello));
    expect(old.ok && old.message.type === 'hello' && old.message.capabilities).toBeUndefined();
    const now = parseAgentToHub(JSON.stringify({ ...hello, capabilities: ['read_journal'] }));
    expect(now.ok && now.message.type === 'hello' && now.message.capabilities).toEqual(['read_journal']);
    expect(parseAgentToHub(JSON.stringify({ ...hello, capabilities: 'read_journal' })).ok).toBe(false);
  });
});

describe('a command type this build does not know', () => {
  const frame = (o: Record<string, unknown>) => JSON.stringify({ type: 'command', id: randomUUID(), command: 'read_minds', payload: {}, issuedAt: 1, ...o });
  it('is refused by the strict parser but recognised as an unknown command (answered, not a protocol error)', () => {
    const f = frame({ sessionId: randomUUID() });
    expect(parseHubToAgent(f).ok).toBe(false);
    const u = unknownCommand(f);
    expect(u).toMatchObject({ command: 'read_minds', id: JSON.parse(f).id, sessionId: JSON.parse(f).sessionId });
  });
  it('is not a licence for malformed frames: known types, bad ids or bad payloads stay malformed', () => {
    expect(unknownCommand(frame({ command: 'probe' }))).toBeNull();
    expect(unknownCommand(frame({ id: '../x' }))).toBeNull();
    expect(unknownCommand(frame({ payload: 'sh' }))).toBeNull();
    expect(unknownCommand(frame({ command: 'x'.repeat(65) }))).toBeNull();
    expect(unknownCommand('{"type":"command"')).toBeNull();
    expect(unknownCommand(JSON.stringify({ type: 'exec', cmd: 'x' }))).toBeNull();
  });
});
