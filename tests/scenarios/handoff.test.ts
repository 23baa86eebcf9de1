import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../packages/core/src/domain/index.ts';
import * as services from '../../packages/core/src/services/index.ts';
import { isAlive } from '../../apps/node-agent/src/executors/proc-tree.ts';
import { type DeskTerminal, startDesk } from '../../packages/testkit/src/desk.ts';
import { type Executor, startSystem, type System, waitUntil } from '../../packages/testkit/src/system.ts';

// Desk ↔ phone through the whole system (hub, engine, Postgres, a real agent, the real pinned CLIs):
// a session begun by hand in the user's own tmux is listed as running outside Bria (never archived
// while its pid lives), Resume is refused, "Continue here" takes it over and delivers the waiting
// message once on the same native id, and a CLI resumed by hand after a close shows up the same way.

let sys: System;
const desks: DeskTerminal[] = [];
beforeAll(async () => {
  sys = await startSystem();
  await sys.startAgent();
}, 180_000);
afterAll(async () => {
  for (const d of desks) d.end();
  await sys?.dispose();
});

async function desk(executor: Executor, folder: string, resumeId?: string): Promise<DeskTerminal> {
  const d = await startDesk({ executor, folder, env: sys.cliEnv, ...(resumeId ? { resumeId } : {}) });
  desks.push(d);
  return d;
}

const openIds = async () => (await services.listOpenSessionsAcross(sys.deps, {})).map((s) => s.id);

describe.each(['claude', 'codex'] as Executor[])('%s begun by hand at the computer', (executor) => {
  let sessionId: string;
  let nativeId: string;
  let deskPid: number;

  it('is listed as running in a terminal, never as archived while its process lives', async () => {
    const folder = sys.folder(`desk-${executor}-${randomUUID().slice(0, 6)}`);
    const d = await desk(executor, folder);
    const text = `hello from the desk ${randomUUID().slice(0, 8)}`;
    await d.type(text);
    await sys.mocks[executor].waitForRequest((r) => r.kind === 'turn' && r.userText === text, 60_000);
    const row = await waitUntil(
      'the hand-started session entered with its desk process',
      async () => sys.db.session.findFirst({ where: { nodeId: sys.nodeId, executor, folder, handoff: 'desk', deskPid: { not: null } } }),
      30_000,
    );
    sessionId = row.id;
    nativeId = row.nativeSessionId!;
    deskPid = row.deskPid!;
    expect(row.state).toBe('Archived');
    expect(row.launchSource).toBe('discovered');
    expect(await isAlive(deskPid)).toBe(true);
    const open = (await services.listOpenSessionsAcross(sys.deps, {})).find((s) => s.id === sessionId);
    expect(open?.desk).toMatchObject({ handoff: 'desk', pid: deskPid, inTmux: true });
    expect(open?.desk?.command).toContain(executor);
  }, 240_000);

  it('Resume is refused with the reason; no second CLI starts', async () => {
    const err = await services.resumeSession(sys.deps, { sessionId }).catch((e: unknown) => e);
    expect(isAppError(err) && err.userMessage).toBe('sessions.running_at_desk');
    expect((await sys.session(sessionId)).state).toBe('Archived');
    expect(await sys.db.agentCommand.count({ where: { sessionId, type: 'resume_session' } })).toBe(0);
  });

  it('"Continue here" ends the desk CLI, resumes the same id and delivers the message once', async () => {
    const text = `continued from the phone ${randomUUID().slice(0, 8)}`;
    const stale = await services.continueHere(sys.deps, { sessionId, pid: deskPid + 1, text, source: 'web' }).catch((e: unknown) => e);
    expect(isAppError(stale) && stale.userMessage).toBe('sessions.desk_changed');
    await services.continueHere(sys.deps, { sessionId, pid: deskPid, text, source: 'web' });
    await sys.waitState(sessionId, 'Ready', 90_000);
    await sys.waitMessages(sessionId, (s) => s.length === 1 && s[0] === 'completed', 60_000);
    expect(sys.turns(executor, nativeId).filter((r) => r.userText === text)).toHaveLength(1);
    const after = await sys.session(sessionId);
    expect(after.nativeSessionId).toBe(nativeId);
    expect(after.handoff).toBe('none');
    expect(await isAlive(deskPid)).toBe(false);
    // Back to the desk: the page shows the one command that continues it at the computer.
    const dto = (await services.listOpenSessionsAcross(sys.deps, {})).find((s) => s.id === sessionId);
    expect(dto?.attachCommand).toMatch(/^tmux -L \S+ attach -t bria-/);
    expect(dto?.desk).toBeNull();
  }, 240_000);

  it('closed in Bria and resumed by hand: shown running outside Bria, then archived when it ends', async () => {
    // Safe to retry: closed once, the retry finds it archived.
    if ((await sys.session(sessionId)).state !== 'Archived') await sys.close(sessionId);
    await sys.waitState(sessionId, 'Archived', 60_000);
    expect(await openIds()).not.toContain(sessionId);
    const row = await sys.session(sessionId);
    const d = await desk(executor, row.folder, nativeId);
    const seen = await waitUntil(
      'the hand resume seen',
      async () => {
        const s = await sys.session(sessionId);
        return s.handoff === 'desk' && s.deskPid ? s : null;
      },
      30_000,
    );
    expect(await openIds()).toContain(sessionId);
    d.end();
    await waitUntil('the desk CLI gone and the session back in the archive', async () => (await sys.session(sessionId)).handoff === 'none', 30_000);
    // Ended: gone, or a zombie nobody reaped yet (it runs no more).
    expect(await isAlive(seen.deskPid!)).toBe(false);
    expect(await openIds()).not.toContain(sessionId);
  }, 240_000);
});
