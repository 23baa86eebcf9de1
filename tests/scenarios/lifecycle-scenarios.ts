import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Executor, procAlive, type System, waitUntil } from '../../packages/testkit/src/system.ts';
import { assertInvariants, nativeJournal, reached } from './invariants.ts';

/** Stop, close, resume and a failed resume of a real CLI session per executor, on `system()`'s agent. */
export function lifecycleScenarios(system: () => System): void {
  let sys!: System;
  beforeAll(() => {
    sys = system();
  });

  describe.each(['claude', 'codex'] as Executor[])('%s', (executor) => {
    let id = '';
    let native = '';
    let closedAt = new Date(0);

    it('Stop: the CLI confirms the interrupt; the next request continues the same native session', async () => {
      const s = await sys.createSession(executor, sys.folder(`life-${executor}`));
      id = s.id;
      await sys.send(id, `warm up ${executor} one`);
      await sys.waitMessages(id, (st) => st[0] === 'completed');
      native = (await sys.session(id)).nativeSessionId!;
      const pid = (await sys.identity(id)).cliPid;
      await sys.send(id, `SLOW story ${executor} two`);
      const req = await sys.mocks[executor].waitForRequest((r) => r.kind === 'turn' && (r.userText ?? '').endsWith(`SLOW story ${executor} two`), 20_000);
      await sys.waitState(id, 'Running');
      await new Promise((r) => setTimeout(r, 500));
      await sys.stop(id);
      await sys.waitState(id, 'Ready', 30_000);
      const msgs = await sys.messages(id);
      expect(msgs.map((m) => m.status)).toEqual(['completed', 'terminal_failed']);
      // The CLI itself ended the answer: the model's stream was cut by the client, and the evidence says so.
      await waitUntil('stream cut', async () => req.clientClosed, 5000);
      expect((await sys.evidence(id)).some((e) => e.event === 'interrupt_confirmed' && e.toState === 'Ready')).toBe(true);
      await sys.send(id, `after stop ${executor} three`);
      await sys.waitMessages(id, (st) => st.length === 3 && st[2] === 'completed');
      const next = sys.turns(executor, native).filter((r) => (r.userText ?? '').endsWith(`after stop ${executor} three`));
      expect(next).toHaveLength(1);
      // Same native session (header) and the earlier turns are in its context.
      expect(JSON.stringify(next[0]!.body)).toContain(`warm up ${executor} one`);
      expect((await sys.identity(id)).cliPid).toBe(pid);
      expect(procAlive(pid)).toBe(true);
      await assertInvariants(sys, [id]);
    });

    it('Close: process really gone, archive record readable, history and resume data present', async () => {
      const ident = await sys.identity(id);
      await sys.close(id);
      const row = await sys.waitState(id, 'Archived');
      closedAt = new Date();
      expect(row.archivedAt).not.toBeNull();
      expect(procAlive(ident.cliPid)).toBe(false);
      expect(sys.paneDead(ident.paneId)).toBeNull(); // the pane is gone with its tmux session
      const copy = await sys.db.archiveCopy.findFirstOrThrow({ where: { sessionId: id } });
      expect(existsSync(copy.path)).toBe(true);
      const bytes = readFileSync(copy.path);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(copy.sha256);
      expect(bytes.toString('utf8')).toContain(`warm up ${executor} one`);
      // The CLI's own journal stays too (history and resume data in both places).
      expect(nativeJournal(sys, native)).not.toBeNull();
      expect(row.nativeSessionId).toBe(native);
      const ev = await sys.evidence(id);
      expect(ev.some((e) => e.toState === 'Archived')).toBe(true);
      const open = await sys.db.session.count({ where: { id, state: { notIn: ['Archived', 'ResumeFailed'] } } });
      expect(open).toBe(0);
    });

    it('Resume: the original native session reopens with its context; lifetime restarts at success', async () => {
      const before = await sys.session(id);
      await sys.resume(id);
      const row = await sys.waitState(id, 'Ready');
      expect(row.nativeSessionId).toBe(native);
      expect(row.executor).toBe(executor);
      expect(row.lifetimeStartedAt!.getTime()).toBeGreaterThanOrEqual(closedAt.getTime() - 1000);
      expect(row.lifetimeStartedAt!.getTime()).toBeGreaterThan(before.lifetimeStartedAt!.getTime());
      const ident = await sys.identity(id);
      expect(procAlive(ident.cliPid)).toBe(true);
      expect(ident.nativeId).toBe(native);
      await sys.send(id, `after resume ${executor} four`);
      await sys.waitMessages(id, (st) => st.length === 4 && st[3] === 'completed');
      const req = sys.turns(executor, native).filter((r) => (r.userText ?? '').endsWith(`after resume ${executor} four`));
      expect(req).toHaveLength(1);
      expect(JSON.stringify(req[0]!.body)).toContain(`after stop ${executor} three`);
      expect(reached(sys, executor, native, `after resume ${executor} four`)).toBe(1);
      await assertInvariants(sys, [id]);
      await sys.close(id);
      await sys.waitState(id, 'Archived');
    });

    it('Resume failure: archive record unchanged, exactly one notice, no session and no process started', async () => {
      const folder = sys.folder(`gone-${executor}`);
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
          title: 'an old session',
        },
      });
      const sessionsBefore = await sys.db.session.count();
      const panesBefore = await sys.db.session.count({ where: { state: { notIn: ['Archived'] } } });
      await sys.resume(ghost.id);
      await waitUntil(
        'resume failure reported',
        async () => (await sys.outbox(ghost.id)).some((o) => (o.payload as { kind?: string }).kind === 'resume_failed'),
        45_000,
      );
      const after = await sys.waitState(ghost.id, 'Archived');
      const strip = (r: Record<string, unknown>) => {
        const { state, version, observerGeneration, updatedAt, ...rest } = r;
        return rest;
      };
      expect(strip(after)).toEqual(strip(ghost));
      await new Promise((r) => setTimeout(r, 1500)); // nothing more arrives later
      const notices = (await sys.outbox(ghost.id)).filter((o) => (o.payload as { kind?: string }).kind === 'resume_failed');
      expect(notices).toHaveLength(1);
      expect(JSON.stringify(notices[0]!.payload)).toMatch(/resume|session|conversation|found/i);
      expect(await sys.db.session.count()).toBe(sessionsBefore);
      expect(await sys.db.session.count({ where: { state: { notIn: ['Archived'] } } })).toBe(panesBefore);
      expect(sys.turns(executor, ghost.nativeSessionId!)).toHaveLength(0);
      expect((await sys.session(ghost.id)).state).toBe('Archived');
    });
  });
}
