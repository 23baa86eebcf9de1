import { describe, expect, it } from 'vitest';
import { isSessionEventName, OPTIONAL_COMMANDS, parseSessionCommand, zAnswerPermission, zPermissionRequest, zPermissionResolved } from './index.ts';

const requestId = crypto.randomUUID();
const request = {
  requestId,
  executor: 'claude',
  kind: 'tool',
  toolName: 'Bash',
  toolInput: { command: 'touch ran-a1', description: 'Touch ran-a1' },
  canAlwaysAllow: true,
  receivedAt: 1_000,
  expiresAt: 1_000 + 30 * 60_000,
};

describe('permission request protocol', () => {
  it('permission_request: a tool or question with its input, bounded, and a sane bound', () => {
    expect(zPermissionRequest.safeParse(request).success).toBe(true);
    expect(zPermissionRequest.safeParse({ ...request, executor: 'codex', canAlwaysAllow: false, justification: 'needs to write' }).success).toBe(true);
    expect(zPermissionRequest.safeParse({ ...request, requestId: 'r1' }).success).toBe(false);
    expect(zPermissionRequest.safeParse({ ...request, kind: 'dialog' }).success).toBe(false);
    expect(zPermissionRequest.safeParse({ ...request, toolInput: { command: 'x'.repeat(70_000) } }).success).toBe(false);
    expect(zPermissionRequest.safeParse({ ...request, expiresAt: 999 }).success).toBe(false);
  });

  it('permission_resolved: answerId exactly when answered', () => {
    const answerId = crypto.randomUUID();
    expect(zPermissionResolved.safeParse({ requestId, outcome: 'answered', answerId, at: 2 }).success).toBe(true);
    expect(zPermissionResolved.safeParse({ requestId, outcome: 'expired', at: 2, evidence: { boundMs: 1800000 } }).success).toBe(true);
    expect(zPermissionResolved.safeParse({ requestId, outcome: 'answered', at: 2 }).success).toBe(false);
    expect(zPermissionResolved.safeParse({ requestId, outcome: 'hook_gone', answerId, at: 2 }).success).toBe(false);
  });

  it('answer_permission: deny carries a message, a question answer carries answers, nothing else mixes', () => {
    const base = { generation: 3, requestId, answerId: crypto.randomUUID(), from: 'telegram' };
    expect(zAnswerPermission.safeParse({ ...base, decision: 'allow' }).success).toBe(true);
    expect(zAnswerPermission.safeParse({ ...base, decision: 'always_allow', from: 'dashboard' }).success).toBe(true);
    expect(zAnswerPermission.safeParse({ ...base, decision: 'deny', message: 'not now' }).success).toBe(true);
    expect(zAnswerPermission.safeParse({ ...base, decision: 'allow', answers: { 'Which color?': 'Blue', 'Which sizes?': ['S', 'M'] } }).success).toBe(true);
    expect(zAnswerPermission.safeParse({ ...base, decision: 'allow', message: 'x' }).success).toBe(false);
    expect(zAnswerPermission.safeParse({ ...base, decision: 'deny', answers: { q: 'a' } }).success).toBe(false);
    expect(zAnswerPermission.safeParse({ ...base, decision: 'deny', message: '' }).success).toBe(false);
    expect(zAnswerPermission.safeParse({ ...base, decision: 'allow', from: 'phone' }).success).toBe(false);
    expect(zAnswerPermission.safeParse({ requestId, answerId: base.answerId, decision: 'allow', from: 'telegram' }).success).toBe(false);
  });

  it('is an event and a command both ends accept, the command only for agents that list it', () => {
    expect(isSessionEventName('permission_request')).toBe(true);
    expect(isSessionEventName('permission_resolved')).toBe(true);
    expect(OPTIONAL_COMMANDS).toContain('answer_permission');
    expect(parseSessionCommand('answer_permission', { generation: 1, requestId, answerId: crypto.randomUUID(), decision: 'allow', from: 'dashboard' }).ok).toBe(
      true,
    );
  });
});
