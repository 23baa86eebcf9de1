import { describe, expect, it } from 'vitest';
import { parseSessionCommand, zCommandType, zReadJournalResult } from './index.ts';

describe('read_journal protocol', () => {
  it('is a command type with a validated payload', () => {
    expect(zCommandType.safeParse('read_journal').success).toBe(true);
    expect(parseSessionCommand('read_journal', { executor: 'claude', nativeSessionId: 'abc', limit: 20 }).ok).toBe(true);
    expect(parseSessionCommand('read_journal', { executor: 'claude', nativeSessionId: 'abc', limit: 1000 }).ok).toBe(false);
    expect(parseSessionCommand('read_journal', { executor: 'gemini', nativeSessionId: 'abc' }).ok).toBe(false);
  });
  it('parses answers of both kinds', () => {
    const ok = zReadJournalResult.safeParse({ ok: true, source: 'native', journalPath: '/j', totalTurns: 1, offset: 0, turns: [{ index: 0, nativeRef: 'u', prompt: 'hi', state: 'completed', final: '**x**' }] });
    expect(ok.success).toBe(true);
    expect(zReadJournalResult.safeParse({ ok: false, code: 'not_found', error: 'no journal' }).success).toBe(true);
    expect(zReadJournalResult.safeParse({ ok: true, source: 'screen', journalPath: '/j', totalTurns: 0, offset: 0, turns: [] }).success).toBe(false);
  });
});
