import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Executor, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
});
afterAll(async () => {
  await sys?.dispose();
});

const strip = (r: Record<string, unknown>) => {
  const { state: _s, version: _v, observerGeneration: _g, updatedAt: _u, ...rest } = r;
  return rest;
};

/** tmux sessions of any CLI the agent launched for this Bria session (named `bria-<id8>-g<generation>`). */
function launched(sessionId: string): string[] {
  const dir = path.join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  const out: string[] = [];
  for (const socket of execFileSync('ls', [dir], { encoding: 'utf8' })
    .split('\n')
    .filter((n) => n.startsWith('bria-sys-'))) {
    try {
      const names = execFileSync('tmux', ['-L', socket, 'list-sessions', '-F', '#{session_name}'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      out.push(...names.split('\n').filter((n) => n.startsWith(`bria-${sessionId.slice(0, 8)}-`)));
    } catch {
      // a server that just went away
    }
  }
  return out;
}

// A discovered session whose folder is gone, or was never recorded: the resume ends at once with
// one notice naming the cause, the archive record unchanged, and no CLI started anywhere.
describe.each(['claude', 'codex'] as Executor[])('%s: every resume ends', (executor) => {
  it('a folder missing on the computer: refused by the agent at once, with the cause, no CLI started', async () => {
    const folder = path.join(sys.folder(`parent-${executor}`), 'deleted-meanwhile');
    const ghost = await sys.db.session.create({
      data: {
        id: randomUUID(),
        nodeId: sys.nodeId,
        executor,
        nativeSessionId: randomUUID(),
        folder,
        state: 'Archived',
        launchSource: 'discovered',
        observerGeneration: 0,
        archivedAt: new Date(),
        archiveSortAt: new Date(),
        title: 'work in a deleted folder',
      },
    });
    await sys.resume(ghost.id);
    // Well inside the resume's own bound (3 min): the agent answers without trying.
    await waitUntil(
      'resume failure reported',
      async () => (await sys.outbox(ghost.id)).some((o) => (o.payload as { kind?: string }).kind === 'resume_failed'),
      30_000,
    );
    const after = await sys.waitState(ghost.id, 'Archived');
    expect(strip(after)).toEqual(strip(ghost));
    const notices = (await sys.outbox(ghost.id)).filter((o) => (o.payload as { kind?: string }).kind === 'resume_failed');
    expect(notices).toHaveLength(1);
    expect((notices[0]!.payload as { cause: string }).cause).toBe(`the folder ${folder} does not exist on this computer`);
    expect(launched(ghost.id)).toEqual([]);
    expect(sys.turns(executor, ghost.nativeSessionId!)).toHaveLength(0);
    // Told by the agent's own fact, not by the hub's reading of a refused command.
    expect(await sys.db.sessionEvidence.count({ where: { sessionId: ghost.id, event: { startsWith: 'refused:' } } })).toBe(0);
    expect(await sys.db.sessionEvidence.count({ where: { sessionId: ghost.id, event: { startsWith: 'reattach' } } })).toBe(0);
  });

  it('no folder recorded: refused by the hub before anything is sent', async () => {
    const ghost = await sys.db.session.create({
      data: {
        id: randomUUID(),
        nodeId: sys.nodeId,
        executor,
        nativeSessionId: randomUUID(),
        folder: '',
        state: 'Archived',
        launchSource: 'discovered',
        observerGeneration: 0,
        archivedAt: new Date(),
        archiveSortAt: new Date(),
        title: null,
      },
    });
    await expect(sys.resume(ghost.id)).rejects.toMatchObject({ userMessage: 'sessions.no_folder' });
    expect(await sys.db.agentCommand.count({ where: { sessionId: ghost.id } })).toBe(0);
    expect(strip(await sys.session(ghost.id))).toEqual(strip(ghost));
    expect((await sys.session(ghost.id)).state).toBe('Archived');
  });
});

// Claude asks whether to trust a folder outside the harness's trusted work folder before it opens anything.
describe('claude: a resume that meets a dialog ends', () => {
  it('a CLI that asks a question before reopening (folder trust): the resume fails with its text, and that CLI is ended', async () => {
    // Outside the harness's trusted work folder: Claude asks whether to trust it.
    const folder = mkdtempSync(path.join(tmpdir(), 'bria-untrusted-resume-'));
    try {
      const ghost = await sys.db.session.create({
        data: {
          id: randomUUID(),
          nodeId: sys.nodeId,
          executor: 'claude',
          nativeSessionId: randomUUID(),
          folder,
          state: 'Archived',
          launchSource: 'discovered',
          observerGeneration: 0,
          archivedAt: new Date(),
          archiveSortAt: new Date(),
          title: 'work in an untrusted folder',
        },
      });
      await sys.resume(ghost.id);
      // The agent's own wait for the prompt (30 s) ends on the dialog, well inside the resume's bound.
      await waitUntil(
        'resume failure reported',
        async () => (await sys.outbox(ghost.id)).some((o) => (o.payload as { kind?: string }).kind === 'resume_failed'),
        90_000,
      );
      const after = await sys.waitState(ghost.id, 'Archived');
      expect(strip(after)).toEqual(strip(ghost));
      const notices = (await sys.outbox(ghost.id)).filter((o) => (o.payload as { kind?: string }).kind === 'resume_failed');
      expect(notices).toHaveLength(1);
      expect((notices[0]!.payload as { cause: string }).cause).toMatch(/asks on the computer[\s\S]*trust/i);
      await waitUntil('its CLI ended', async () => launched(ghost.id).length === 0, 30_000);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 150_000);
});
