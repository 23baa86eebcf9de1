import { describe, expect, it } from 'vitest';
import { failureCode, parseCommandResult, type SessionEventOut } from './index.ts';

describe('command results', () => {
  it('reads an answer with its machine code and keeps the human text beside it', () => {
    const r = parseCommandResult({ command: 'resume_session', ok: false, code: 'folder_missing', error: 'the folder /w does not exist on this computer' });
    expect(r.ok && r.result.kind === 'launch' && [r.result.code, r.result.error]).toEqual(['folder_missing', 'the folder /w does not exist on this computer']);
  });
  it("never fails on an older agent's answer without a code: its flags, else the generic code", () => {
    const deliver = (extra: Record<string, unknown>) => parseCommandResult({ command: 'deliver', ok: false, messageId: 'm', ...extra });
    expect(deliver({ typed: false, stale: true })).toMatchObject({ ok: true, result: { code: 'stale_generation', kind: 'deliver' } });
    expect(deliver({ typed: false, attachmentError: 'disk full' })).toMatchObject({ ok: true, result: { code: 'attachment_not_stored' } });
    expect(deliver({ typed: false })).toMatchObject({ ok: true, result: { code: 'not_typed' } });
    expect(deliver({ delivery: 'unknown' })).toMatchObject({ ok: true, result: { code: 'delivery_unknown' } });
    expect(parseCommandResult({ command: 'start_session', ok: false, blocked: true })).toMatchObject({ ok: true, result: { code: 'blocked' } });
    expect(parseCommandResult({ command: 'close_session', ok: false, error: 'unknown session' })).toMatchObject({ ok: true, result: { code: 'failed' } });
    expect(parseCommandResult({ command: 'probe', ok: true, executors: [] })).toMatchObject({ ok: true, result: { code: undefined, executors: [] } });
  });
  it('reads a code it does not know (a newer agent) as absent, and refuses malformed answers without throwing', () => {
    expect(parseCommandResult({ command: 'deliver', ok: false, typed: false, code: 'from_the_future' })).toMatchObject({
      ok: true,
      result: { code: 'not_typed' },
    });
    expect(parseCommandResult({ command: 'interrupt', ok: false, code: 'from_the_future' })).toMatchObject({ ok: true, result: { code: 'failed' } });
    expect(parseCommandResult({ command: 'deliver', typed: 'no' }).ok).toBe(false);
    expect(parseCommandResult(null).ok).toBe(false);
    expect(failureCode({ ok: true, code: 'failed' })).toBeNull();
  });
  it("types the agent's events by name: a misspelt event or a wrong payload does not compile", () => {
    const ok: SessionEventOut = { event: 'resume_failed', payload: { reason: 'x', code: 'folder_missing' } };
    // @ts-expect-error misspelt event name
    const misspelt: SessionEventOut = { event: 'resume_faild', payload: { reason: 'x' } };
    // @ts-expect-error wrong payload for the event
    const wrong: SessionEventOut = { event: 'evidence_unknown', payload: { messageId: 'm' } };
    expect([ok, misspelt, wrong].map((e) => e.event)).toEqual(['resume_failed', 'resume_faild', 'evidence_unknown']);
  });
});
