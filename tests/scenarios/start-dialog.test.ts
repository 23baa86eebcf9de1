import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';
import { assertInvariants, reached } from './invariants.ts';

let sys: System;
let untrusted: string;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
  // Outside the harness's trusted work folder: Claude asks whether to trust it.
  untrusted = mkdtempSync(path.join(tmpdir(), 'bria-untrusted-'));
});
afterAll(async () => {
  await sys?.dispose();
  if (untrusted) rmSync(untrusted, { recursive: true, force: true });
});

/** The tmux socket and pane of a session's CLI, found by the session name the agent gives it. */
function findPane(sessionId: string): { socket: string; pane: string } | null {
  return panesOf(sessionId)[0] ?? null;
}

const blockedNotices = async (sessionId: string) => (await sys.outbox(sessionId)).filter((o) => (o.payload as { kind?: string }).kind === 'blocked_on_prompt');

describe('a CLI that shows a dialog while starting', () => {
  it('Claude folder trust dialog: the chat gets its text while Starting; answered on the computer after the start gave up, the same CLI becomes Ready and the queue runs once', async () => {
    const s = await sys.createSession('claude', untrusted);
    await waitUntil('blocked notice', async () => (await blockedNotices(s.id)).length > 0, 30_000);
    const notice = (await blockedNotices(s.id))[0]!;
    expect((notice.payload as { text: string }).text).toMatch(/trust/i);
    expect((await sys.session(s.id)).state).toBe('Starting');
    const ev = (await sys.evidence(s.id)).find((e) => e.event === 'blocked_on_prompt');
    expect(ev?.fromState).toBe('Starting');
    expect((ev?.evidence as { text?: string } | undefined)?.text).toMatch(/trust/i);
    await sys.send(s.id, 'after the trust dialog one');

    // The start command gives up waiting for the prompt (30 s) and answers blocked; the CLI stays on its dialog.
    const start = await sys.db.agentCommand.findFirstOrThrow({ where: { sessionId: s.id, type: 'start_session' } });
    await waitUntil(
      'start answered blocked',
      async () => {
        const r = await sys.db.agentEvent.findFirst({ where: { commandId: start.id, type: 'command_result' } });
        return r && JSON.stringify(r.payload).includes('"blocked":true');
      },
      60_000,
      250,
    );
    expect((await sys.session(s.id)).state).toBe('Starting');
    expect((await sys.messages(s.id)).map((m) => m.status)).toEqual(['pending']);

    // The user answers on the computer (Enter = the dialog's first choice, "Yes, proceed").
    const where = findPane(s.id);
    expect(where).not.toBeNull();
    execFileSync('tmux', ['-L', where!.socket, 'send-keys', '-t', where!.pane, 'Enter']);
    await sys.waitState(s.id, 'Ready', 30_000);
    const msgs = await sys.waitMessages(s.id, (st) => st[0] === 'completed', 60_000);

    const row = await sys.session(s.id);
    const id = await sys.identity(s.id);
    expect(id.paneId).toBe(where!.pane);
    expect(row.nativeSessionId).toBe(id.nativeId);
    expect(reached(sys, 'claude', row.nativeSessionId!, msgs[0]!.text)).toBe(1);
    // One CLI, one start: the one that showed the dialog.
    expect(await sys.db.agentCommand.count({ where: { sessionId: s.id, type: { in: ['start_session', 'resume_session'] } } })).toBe(1);
    await assertInvariants(sys, [s.id]);
  }, 150_000);

  it('the agent restarts while it watches a start dialog: the unconfirmed CLI is ended, the session is started again and shows the dialog once more; never two CLIs', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'bria-untrusted-'));
    try {
      const s = await sys.createSession('claude', folder);
      await waitUntil('blocked notice', async () => (await blockedNotices(s.id)).length > 0, 30_000);
      const start = await sys.db.agentCommand.findFirstOrThrow({ where: { sessionId: s.id, type: 'start_session' } });
      await waitUntil(
        'start answered blocked',
        async () => {
          const r = await sys.db.agentEvent.findFirst({ where: { commandId: start.id, type: 'command_result' } });
          return r && JSON.stringify(r.payload).includes('"blocked":true');
        },
        60_000,
        250,
      );
      const first = findPane(s.id);
      expect(first).not.toBeNull();
      await sys.send(s.id, 'after the agent restart one');

      await sys.killAgent();
      await sys.startAgent();
      await waitUntil('a second blocked notice', async () => (await blockedNotices(s.id)).length > 1, 60_000);
      // Still not ready: Starting, or recovering a start (the agent's restart lost the binding).
      const waiting = await sys.session(s.id);
      expect(waiting.state === 'Starting' || (waiting.state === 'AwaitingRecovery' && waiting.resumeState === 'Starting')).toBe(true);
      expect(panesOf(s.id)).toHaveLength(1);
      const second = findPane(s.id);
      expect(second?.pane).not.toBe(first!.pane);
      execFileSync('tmux', ['-L', second!.socket, 'send-keys', '-t', second!.pane, 'Enter']);
      await sys.waitState(s.id, 'Ready', 60_000);
      const msgs = await sys.waitMessages(s.id, (st) => st[0] === 'completed', 60_000);
      expect(panesOf(s.id)).toHaveLength(1);
      const row = await sys.session(s.id);
      expect((await sys.identity(s.id)).paneId).toBe(second!.pane);
      expect(reached(sys, 'claude', row.nativeSessionId!, msgs[0]!.text)).toBe(1);
      expect(sys.agentLog()).toContain('agent.unconfirmed_cli_ended');
      await assertInvariants(sys, [s.id]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 200_000);

  it('the agent is away while a start waits on its dialog and the start is retried meanwhile: the dialog is told at once, and the CLI the user answers becomes Ready', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'bria-untrusted-'));
    try {
      const s = await sys.createSession('claude', folder);
      await waitUntil('blocked notice', async () => (await blockedNotices(s.id)).length > 0, 30_000);
      await sys.send(s.id, 'after the away agent one');
      await sys.killAgent();
      // The hub retries the start while the agent is away: each retry takes a new generation.
      const starts = () => sys.db.agentCommand.count({ where: { sessionId: s.id, type: 'start_session' } });
      await waitUntil('start retries while the agent is away', async () => (await starts()) >= 4, 60_000, 250);
      await sys.startAgent();
      await waitUntil(
        'the hub asked to re-attach',
        async () => (await sys.db.agentCommand.count({ where: { sessionId: s.id, type: 'attach_session' } })) > 0,
        30_000,
        250,
      );
      // The new CLI's dialog reaches the chat although its start's generation was superseded by the
      // later retries and the re-attach: no further retry is needed to tell it.
      await waitUntil('a second blocked notice', async () => (await blockedNotices(s.id)).length > 1, 60_000);
      const waiting = await sys.session(s.id);
      expect(waiting.state === 'Starting' || (waiting.state === 'AwaitingRecovery' && waiting.resumeState === 'Starting')).toBe(true);
      expect(panesOf(s.id)).toHaveLength(1);
      const answered = findPane(s.id)!;
      // The agent has run every command the hub sent it meanwhile (the re-attach among them).
      await waitUntil(
        'every command answered',
        async () => {
          const ids = (await sys.db.agentCommand.findMany({ where: { sessionId: s.id }, select: { id: true } })).map((c) => c.id);
          return (await sys.db.agentEvent.count({ where: { commandId: { in: ids }, type: 'command_result' } })) >= ids.length;
        },
        90_000,
        250,
      );
      execFileSync('tmux', ['-L', answered.socket, 'send-keys', '-t', answered.pane, 'Enter']);
      await sys.waitState(s.id, 'Ready', 60_000);
      // The very CLI the user answered, not one started after it.
      expect((await sys.identity(s.id)).paneId).toBe(answered.pane);
      const msgs = await sys.waitMessages(s.id, (st) => st[0] === 'completed', 60_000);
      expect(panesOf(s.id)).toHaveLength(1);
      const row = await sys.session(s.id);
      expect(reached(sys, 'claude', row.nativeSessionId!, msgs[0]!.text)).toBe(1);
      await assertInvariants(sys, [s.id]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 300_000);
});

/** Every pane of this session's CLIs, across generations (its tmux session is `bria-<id8>-g<generation>`). */
function panesOf(sessionId: string): { socket: string; pane: string }[] {
  const dir = path.join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  const found: { socket: string; pane: string }[] = [];
  for (const socket of readdirSync(dir).filter((n) => n.startsWith('bria-sys-'))) {
    try {
      const out = execFileSync('tmux', ['-L', socket, 'list-panes', '-a', '-F', '#{session_name} #{pane_id}'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      for (const l of out.split('\n').filter((x) => x.startsWith(`bria-${sessionId.slice(0, 8)}-g`))) found.push({ socket, pane: l.split(' ')[1]! });
    } catch {
      // another test's server that just went away
    }
  }
  return found;
}
