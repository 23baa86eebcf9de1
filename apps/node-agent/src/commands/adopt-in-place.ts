import { stat } from 'node:fs/promises';
import { nativeIdRefusal } from '../executors/index.ts';
import { claudeDriver } from '../executors/claude-driver.ts';
import { codexDriver } from '../executors/codex-driver.ts';
import type { Executor } from '../executors/index.ts';
import { checkAdoption } from '../handoff/adopt.ts';
import { toDeskHolder } from '../handoff/desk-guard.ts';
import { reportIdentity } from './host-event-map.ts';
import type { Result, SessionRuntime } from './session-runtime.ts';

export interface AdoptParams {
  generation: number;
  executor: Executor;
  folder: string;
  nativeSessionId: string;
  pid: number;
  startTime: string;
}

/**
 * `adopt_in_place`: the session's CLI, begun by hand in a tmux pane of this user, becomes one of
 * Bria's sessions in that pane, never restarted (`handoff/adopt.ts` checks it again first). It
 * answers like a resume: `resume_confirmed` with the identity (the user's server by socket path, the
 * same pid, the same journal), or `resume_failed` with the refusal's code and reason; nothing is
 * typed into the pane before it is Ready.
 */
export async function adoptInPlace(rt: SessionRuntime, sessionId: string, p: AdoptParams): Promise<Result> {
  const refuse = (code: 'invalid_native_id' | 'not_in_tmux' | 'other_user' | 'pane_gone' | 'holder_changed', reason: string, extra: Result = {}) => {
    rt.o.log('warn', 'agent.adopt_refused', { sessionId, code, pid: p.pid });
    rt.o.emit({
      event: 'resume_failed',
      sessionId,
      generation: p.generation,
      payload: { reason: reason.slice(0, 500), code, ...(extra.holder ? { holder: extra.holder as ReturnType<typeof toDeskHolder> } : {}) },
    });
    return { ok: false, error: reason, refused: true, code };
  };
  const bad = nativeIdRefusal(p.executor, p.nativeSessionId);
  if (bad) return refuse('invalid_native_id', bad);
  const rec = rt.registry.get(sessionId);
  const live = rt.hosts.get(sessionId);
  if (rec?.status === 'live' && rec.identity?.nativeId === p.nativeSessionId && rec.identity.cliPid === p.pid && live) {
    rt.send(sessionId, 'resume_confirmed', { identity: reportIdentity(rec.identity) });
    return { ok: true, alreadyRunning: true };
  }
  const check = await checkAdoption({
    env: rt.o.env,
    briaServerPid: await rt.o.tmux.serverPid().catch(() => null),
    briaPids: rt.adoptedPids(),
    executor: p.executor,
    nativeId: p.nativeSessionId,
    pid: p.pid,
    startTime: p.startTime,
    cwd: p.folder,
    runDir: rt.o.tmux.runDir,
  });
  if (!check.ok) return refuse(check.code, check.reason);
  const driver = p.executor === 'claude' ? claudeDriver : codexDriver;
  const journalPath = await driver.findJournal(
    { tmux: check.tmux, paneId: check.identity.paneId, cwd: p.folder, env: rt.o.env, cliPid: check.identity.cliPid, startedAt: 0 },
    check.identity.nativeId,
    { resumed: true },
  );
  const identity = { ...check.identity, journalPath };
  // What the journal held before: the hub has it from discovery; activity is sent from here on.
  const journalOffset = journalPath ? ((await stat(journalPath).catch(() => null))?.size ?? 0) : 0;
  rt.registry.put(sessionId, {
    executor: p.executor,
    folder: p.folder,
    generation: p.generation,
    status: 'live',
    identity,
    turns: [],
    orphans: rec?.orphans ?? [],
    unconfirmed: [],
    deliveries: rec?.deliveries ?? [],
    recent: rec?.recent ?? [],
    journalOffset,
  });
  const host = rt.newHost(sessionId, p.executor, undefined, rt.tmuxFor(identity));
  const a = await host.attach(identity, { journalOffset });
  if (!a.ok) {
    rt.hosts.delete(sessionId);
    rt.registry.put(sessionId, { status: 'closed', identity: rec?.identity ?? null });
    host.detach();
    return refuse('pane_gone', `not adopted: the pane or the process changed while binding (${a.mismatches.map((m) => m.field).join(', ')})`, {
      holder: toDeskHolder(check.holder),
    });
  }
  rt.o.log('info', 'agent.adopted', { sessionId, pid: identity.cliPid, pane: identity.paneId });
  rt.send(sessionId, 'resume_confirmed', { identity: reportIdentity(identity) });
  rt.replayRecent(sessionId);
  rt.reportOrphans(sessionId);
  return { ok: true, nativeSessionId: identity.nativeId, adopted: true };
}
