import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Command } from '@bria/core/protocol';
import { killTmuxServer } from '../../../../packages/testkit/src/system.ts';
import { Tmux } from '../tmux/tmux.ts';
import { handleSessionCommand } from './handle-command.ts';
import { SessionControl } from './session-control.ts';

// Refusals reach the hub with a machine code beside the human text; nothing here launches a CLI.
const root = mkdtempSync(path.join(tmpdir(), 'bria-handle-cmd-'));
const socket = `bria-hc-${process.pid}`;
afterAll(async () => {
  await killTmuxServer(socket);
  rmSync(root, { recursive: true, force: true });
});

const control = new SessionControl({
  dir: path.join(root, 'agent'),
  tmux: new Tmux({ socketName: socket, runDir: path.join(root, 'tmux') }),
  bins: { claude: '/bin/false', codex: '/bin/false' },
  env: { ...process.env, PATH: process.env.PATH ?? '' },
  log: () => undefined,
  emit: () => undefined,
});
const command = (c: Pick<Command, 'command' | 'payload'> & { sessionId?: string }): Command => ({
  type: 'command',
  id: randomUUID(),
  issuedAt: Date.now(),
  ...c,
});

describe('handleSessionCommand answers with machine codes', () => {
  it('refusals it decides itself: payload, session id, stale generation, discovery off', async () => {
    const sessionId = randomUUID();
    expect(await handleSessionCommand(command({ command: 'deliver', sessionId, payload: { generation: 1 } }), control, null)).toMatchObject({
      ok: false,
      code: 'invalid_payload',
      error: expect.stringMatching(/^invalid payload/),
    });
    expect(await handleSessionCommand(command({ command: 'interrupt', payload: { generation: 1 } }), control, null)).toMatchObject({
      ok: false,
      code: 'invalid_payload',
      error: 'session command without a session id',
    });
    control.registry.put(sessionId, { executor: 'claude', folder: root, generation: 5, status: 'exited', deliveries: [] });
    const messageId = randomUUID();
    expect(
      await handleSessionCommand(command({ command: 'deliver', sessionId, payload: { generation: 4, messageId, text: 'hi' } }), control, null),
    ).toMatchObject({ ok: false, code: 'stale_generation', stale: true, typed: false, messageId, error: 'stale generation 4 (current 5)' });
    expect(await handleSessionCommand(command({ command: 'discover', payload: {} }), control, null)).toMatchObject({ ok: false, code: 'unsupported' });
  });
  it('answers SessionControl built: not typed, invalid native id, missing folder', async () => {
    const sessionId = randomUUID();
    const messageId = randomUUID();
    expect(
      await handleSessionCommand(command({ command: 'deliver', sessionId, payload: { generation: 1, messageId, text: 'hi' } }), control, null),
    ).toMatchObject({ ok: false, code: 'not_typed', typed: false, error: 'no live session here' });
    const resume = (folder: string, nativeSessionId: string) =>
      handleSessionCommand(
        command({ command: 'resume_session', sessionId: randomUUID(), payload: { generation: 1, executor: 'claude', folder, nativeSessionId } }),
        control,
        null,
      );
    expect(await resume(root, '--dangerous')).toMatchObject({ ok: false, code: 'invalid_native_id' });
    expect(await resume(path.join(root, 'gone'), randomUUID())).toMatchObject({
      ok: false,
      code: 'folder_missing',
      error: expect.stringMatching(/does not exist/),
    });
  });
  it('validate_folder answers carry their code beside the reason', async () => {
    expect(await handleSessionCommand(command({ command: 'validate_folder', payload: { folder: path.join(root, 'gone') } }), control, null)).toMatchObject({
      ok: false,
      code: 'folder_missing',
      reason: 'The folder does not exist on this computer.',
    });
  });
});
