import { describe, expect, it } from 'vitest';
import { parseSessionCommand, parseSessionEvent } from './index.ts';

describe('session protocol payloads', () => {
  it('accepts a Claude start with a chosen v4 id and refuses a missing generation', () => {
    const ok = parseSessionCommand('start_session', {
      generation: 1,
      executor: 'claude',
      folder: '/w',
      permissionMode: 'default',
      nativeSessionId: crypto.randomUUID(),
    });
    expect(ok.ok).toBe(true);
    expect(parseSessionCommand('start_session', { executor: 'claude', folder: '/w', permissionMode: 'default' }).ok).toBe(false);
  });
  it('requires a turn id or record id on a receipt', () => {
    const messageId = crypto.randomUUID();
    expect(parseSessionEvent('turn_accepted', { messageId, nativeTurnId: 't1', offset: 10 }).ok).toBe(true);
    expect(parseSessionEvent('turn_accepted', { messageId, nativeRecordId: 'r1' }).ok).toBe(true);
    expect(parseSessionEvent('turn_accepted', { messageId }).ok).toBe(false);
  });
  it('refuses unknown events and malformed exits', () => {
    expect(parseSessionEvent('nope', {}).ok).toBe(false);
    expect(parseSessionEvent('process_exited', { pids: [1], exitStatus: 0, paneDead: true }).ok).toBe(false);
    const r = parseSessionEvent('process_exited', { pids: [1], exitStatus: null, paneDead: true, verified: true });
    expect(r.ok && r.event.name === 'process_exited' && r.event.payload.verified).toBe(true);
  });
});
