// The real Claude Code CLI: a session whose first CLI ended before its first prompt left a journal of
// mode lines only. Claude refuses `--session-id` for that id ("already in use") and `--resume` finds
// no conversation in it, so the agent moves that journal aside before it starts Claude again under
// the session's own id (chaos seed 40005: the start was refused for ever). A journal holding a
// conversation is never touched, and that start is refused by the CLI, not replaced.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { claudeBin, codexBin } from '@bria/testkit/cli-homes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeProjectDirName } from '../executors/claude-driver.ts';
import { claudeConfigDir } from '../executors/index.ts';
import { createRig, type Rig } from '../../test-support/test-rig.ts';
import { SessionControl } from './session-control.ts';

let rig: Rig;
let control: SessionControl;
const events: { event: string; payload: Record<string, unknown> }[] = [];
const logs: string[] = [];
const logFields: Record<string, unknown>[] = [];
beforeAll(async () => {
  rig = await createRig('claude');
  control = new SessionControl({
    dir: path.join(rig.root, 'agent'),
    tmux: rig.tmux,
    bins: { claude: claudeBin, codex: codexBin },
    env: rig.env,
    log: (_level, msg, fields) => {
      logs.push(msg);
      logFields.push({ msg, ...fields });
    },
    emit: (e) => events.push({ event: e.event, payload: e.payload }),
  });
}, 60_000);
afterAll(async () => {
  await control?.close('a1000000-again').catch(() => undefined);
  await rig?.dispose();
});

const MODE_LINES = '{"type":"mode","mode":"normal"}\n{"type":"permission-mode","permissionMode":"default"}\n';
function journalOf(nativeId: string): string {
  const project = path.join(claudeConfigDir(rig.env), 'projects', claudeProjectDirName(rig.work));
  mkdirSync(project, { recursive: true });
  return path.join(project, `${nativeId}.jsonl`);
}

describe('starting Claude again under the session id of a CLI that ended before its first prompt', () => {
  it('moves a journal of mode lines aside and starts the CLI under the same id', async () => {
    const nativeId = '7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    const journal = journalOf(nativeId);
    writeFileSync(journal, MODE_LINES);
    const r = await control.start('a1000000-again', {
      generation: 2,
      executor: 'claude',
      folder: rig.work,
      permissionMode: 'default',
      nativeSessionId: nativeId,
    });
    expect(r).toMatchObject({ ok: true, nativeSessionId: nativeId });
    const ready = events.find((e) => e.event === 'session_ready');
    expect((ready?.payload.identity as { nativeSessionId?: string } | undefined)?.nativeSessionId).toBe(nativeId);
    // The running CLI registered itself under that id (its own live registry, not Bria's word).
    const registry = path.join(claudeConfigDir(rig.env), 'sessions');
    const live = readdirSync(registry).map((f) => JSON.parse(readFileSync(path.join(registry, f), 'utf8')) as { sessionId?: string });
    expect(live.map((s) => s.sessionId)).toContain(nativeId);
    // Kept beside it, not deleted.
    const aside = readdirSync(path.dirname(journal)).filter((f) => f.startsWith(`${nativeId}.jsonl.no-conversation-`));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(path.dirname(journal), aside[0] ?? ''), 'utf8')).toBe(MODE_LINES);
    expect(logs).toContain('agent.start_set_aside_empty_journal');
  }, 120_000);

  it('leaves a journal holding a conversation where it is: the CLI refuses the id, nothing is replaced', async () => {
    const nativeId = '8e2d3c4b-5f60-4b7c-9d8e-0f1a2b3c4d5e';
    const journal = journalOf(nativeId);
    const conversation = `${MODE_LINES}{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"${nativeId}"}\n`;
    writeFileSync(journal, conversation);
    const before = events.length;
    const r = await control.start('b2000000-again', {
      generation: 2,
      executor: 'claude',
      folder: rig.work,
      permissionMode: 'default',
      nativeSessionId: nativeId,
    });
    expect(r.ok).toBe(false);
    // The CLI's own refusal, in the agent's log.
    expect(String(logFields.find((f) => f.msg === 'agent.start_failed' && f.sessionId === 'b2000000-again')?.cliSaid)).toMatch(
      /Session ID .* is already in use/,
    );
    expect(events.slice(before).map((e) => e.event)).not.toContain('session_ready');
    expect(existsSync(journal)).toBe(true);
    expect(readFileSync(journal, 'utf8')).toBe(conversation);
  }, 120_000);
});
